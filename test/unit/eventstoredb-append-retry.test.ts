import { ANY, convertToCommandError, NO_STREAM, StreamDeletedError, WrongExpectedVersionError } from '@eventstore/db-client';
import { describe, expect, it } from 'vitest';
import {
  type AppendRetryPolicy,
  appendRetryPolicy,
  isTransient,
  retryDelay,
  SEND_MS,
  sendWithRetry,
} from '../../src/adapters/eventstoredb/append-retry.js';
import { toEventData, toExpectedRevision } from '../../src/adapters/eventstoredb/mapping.js';
import { BackendTimeoutError } from '../../src/support/backend-timeout.js';

/** gRPC status codes, as @grpc/grpc-js numbers them. */
const grpc = {
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  ABORTED: 10,
  UNAVAILABLE: 14,
  UNAUTHENTICATED: 16,
} as const;

/** A failed call as gRPC hands it to the client, turned into the error the client throws (its own conversion). */
function clientError(code: number, details: string, metadata: Record<string, string> = {}): Error {
  const raw = Object.assign(new Error(`${code} ${details}`), { code, details, metadata: { getMap: () => metadata } });
  return convertToCommandError(raw);
}

const lostReply = () => clientError(grpc.DEADLINE_EXCEEDED, 'Deadline exceeded');
const unavailable = () => clientError(grpc.UNAVAILABLE, 'No connection established');

/** The append as the adapter sends it: event ids and expected revision fixed once. */
function request(expected: 'no_stream' | 'any' | bigint) {
  return {
    streamName: 'sandbox.subject-sub_1',
    events: [
      toEventData({ id: '0b0e6a3e-5f7c-4c61-9a55-2a4b1c7f0f11', type: 'SubjectCreated', data: { a: 1 }, metadata: {} }),
      toEventData({ id: '5d3f1e2a-8b4c-4d6e-9f0a-1b2c3d4e5f60', type: 'ConsentRecorded', data: { b: 2 }, metadata: {} }),
    ],
    expectedRevision: toExpectedRevision(expected),
  };
}

/** A clock that moves only when a send takes time or the retries wait; it records the waits. */
function fakeClock() {
  let now = 0;
  const waits: number[] = [];
  return {
    now: () => now,
    wait: async (ms: number) => {
      waits.push(ms);
      now += ms;
    },
    take: (ms: number) => {
      now += ms;
    },
    waits,
  };
}

/**
 * A send that fails with `failures` in turn, then answers. A failed send takes the whole deadline it was given
 * (a lost reply is known only when the deadline passes). It records a deep copy of every request and each deadline.
 */
function scriptedSend(failures: Error[], clock: ReturnType<typeof fakeClock>) {
  const sent: unknown[] = [];
  const deadlines: number[] = [];
  const send = async (sentRequest: ReturnType<typeof request>, deadline: number) => {
    sent.push(structuredClone(sentRequest));
    deadlines.push(deadline);
    const failure = failures.shift();
    if (failure !== undefined) {
      clock.take(deadline);
      throw failure;
    }
    return { success: true, nextExpectedRevision: 1n };
  };
  return { send, sent, deadlines };
}

describe('EventStoreDB append retries (no server)', () => {
  it('counts a lost reply, an unreachable or no longer leading node, a commit timeout and no answer in time as transient', () => {
    expect(isTransient(lostReply())).toBe(true);
    expect(isTransient(unavailable())).toBe(true);
    expect(isTransient(clientError(grpc.ABORTED, 'Operation timed out'))).toBe(true);
    expect(isTransient(clientError(grpc.CANCELLED, 'Cancelled by the server'))).toBe(true);
    expect(
      isTransient(
        clientError(grpc.UNKNOWN, 'Leader info available', {
          exception: 'not-leader',
          'leader-endpoint-host': 'node2',
          'leader-endpoint-port': '2113',
        }),
      ),
    ).toBe(true);
    expect(isTransient(new BackendTimeoutError('no answer within 400 ms'))).toBe(true);
  });

  it('does not count a conflict, a deleted stream, a refusal or a bad request as transient: resending would fail the same way', () => {
    const conflict = clientError(grpc.UNKNOWN, 'WrongExpectedVersion', {
      exception: 'wrong-expected-version',
      'stream-name': 'sandbox.subject-sub_1',
      'expected-version': '3',
      'actual-version': '4',
    });
    expect(conflict).toBeInstanceOf(WrongExpectedVersionError);
    expect(isTransient(conflict)).toBe(false);
    expect(isTransient(StreamDeletedError.fromStreamName('sandbox.subject-sub_1'))).toBe(false);
    expect(isTransient(clientError(grpc.UNKNOWN, 'Access denied', { exception: 'access-denied' }))).toBe(false);
    expect(isTransient(clientError(grpc.UNAUTHENTICATED, 'Bad credentials'))).toBe(false);
    expect(isTransient(clientError(grpc.INVALID_ARGUMENT, 'Bad request'))).toBe(false);
    // The client cancelling its own call (the subscriber stopping) is no failure of the server.
    expect(isTransient(clientError(grpc.CANCELLED, 'Cancelled on client'))).toBe(false);
    expect(isTransient(new Error('something else'))).toBe(false);
  });

  it.each([['no_stream' as const], [41n], ['any' as const]])(
    'resends the same event ids and expected revision (%s) after lost replies, and answers the send that got through',
    async (expected) => {
      const clock = fakeClock();
      const { send, sent } = scriptedSend([lostReply(), unavailable()], clock);
      const answer = await sendWithRetry(send, request(expected), appendRetryPolicy(30_000), clock);
      expect(answer).toEqual({ result: { success: true, nextExpectedRevision: 1n }, attempts: 3 });
      expect(sent).toHaveLength(3);
      for (const resent of sent) expect(resent).toEqual(sent[0]);
      const first = sent[0] as ReturnType<typeof request>;
      expect(first.events.map((event) => event.id)).toEqual([
        '0b0e6a3e-5f7c-4c61-9a55-2a4b1c7f0f11',
        '5d3f1e2a-8b4c-4d6e-9f0a-1b2c3d4e5f60',
      ]);
      expect(first.expectedRevision).toBe(expected === 'no_stream' ? NO_STREAM : expected === 'any' ? ANY : 41n);
      expect(clock.waits).toEqual([200, 400]);
    },
  );

  it("gives up within the append's time, never letting a send's deadline run past it, and throws the last failure", async () => {
    const clock = fakeClock();
    const policy: AppendRetryPolicy = { totalMs: 5_000, sendMs: 2_000, firstDelayMs: 200, maxDelayMs: 2_000 };
    const last = unavailable();
    const { send, deadlines } = scriptedSend([lostReply(), lostReply(), last, lostReply()], clock);
    await expect(sendWithRetry(send, request(3n), policy, clock)).rejects.toBe(last);
    // 2 s send, 200 ms wait, 2 s send, 400 ms wait, then what is left (400 ms): no time for another wait and send.
    expect(deadlines).toEqual([2_000, 2_000, 400]);
    expect(clock.waits).toEqual([200, 400]);
    expect(clock.now()).toBe(5_000);
  });

  it("gives each send the client's own deadline while the append's time allows", async () => {
    const clock = fakeClock();
    const { send, deadlines } = scriptedSend([lostReply()], clock);
    await sendWithRetry(send, request(0n), appendRetryPolicy(60_000), clock);
    expect(deadlines).toEqual([SEND_MS, SEND_MS]);
  });

  it("cuts off a send that outlives the append's time, whatever the client does with its deadline", async () => {
    const never = () => new Promise<never>(() => {});
    const failure = await sendWithRetry(never, request(0n), { totalMs: 30, sendMs: 30, firstDelayMs: 200, maxDelayMs: 200 }).catch(
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(BackendTimeoutError);
  });

  it('sends once and throws at once when the failure is not transient', async () => {
    const clock = fakeClock();
    const denied = clientError(grpc.UNKNOWN, 'Access denied', { exception: 'access-denied' });
    const { send, sent } = scriptedSend([denied], clock);
    await expect(sendWithRetry(send, request('no_stream'), appendRetryPolicy(20_000), clock)).rejects.toBe(denied);
    expect(sent).toHaveLength(1);
    expect(clock.waits).toEqual([]);
  });

  it('sends once when the first send is answered', async () => {
    const clock = fakeClock();
    const { send, sent } = scriptedSend([], clock);
    expect(await sendWithRetry(send, request(0n), appendRetryPolicy(20_000), clock)).toMatchObject({ attempts: 1 });
    expect(sent).toHaveLength(1);
  });

  it('waits at most the cap between sends, however long the append may take', () => {
    const policy: AppendRetryPolicy = { totalMs: 300_000, sendMs: SEND_MS, firstDelayMs: 100, maxDelayMs: 2000 };
    expect(Array.from({ length: 6 }, (_, i) => retryDelay(policy, i + 1))).toEqual([100, 200, 400, 800, 1600, 2000]);
    expect(retryDelay(policy, 49)).toBe(2000);
  });
});
