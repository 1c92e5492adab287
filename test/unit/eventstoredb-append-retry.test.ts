import { ANY, NO_STREAM, WrongExpectedVersionError, convertToCommandError } from '@eventstore/db-client';
import { describe, expect, it } from 'vitest';
import { APPEND_RETRY, type AppendRetryPolicy, isTransient, retryDelay, sendWithRetry } from '../../src/adapters/eventstoredb/append-retry.js';
import { toEventData, toExpectedRevision } from '../../src/adapters/eventstoredb/mapping.js';

/** gRPC status codes, as @grpc/grpc-js numbers them. */
const grpc = { CANCELLED: 1, UNKNOWN: 2, INVALID_ARGUMENT: 3, DEADLINE_EXCEEDED: 4, ABORTED: 10, UNAVAILABLE: 14, UNAUTHENTICATED: 16 } as const;

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

/** A send that fails with `failures` in turn, then answers; it records a deep copy of every request it got. */
function scriptedSend(failures: Error[]) {
  const sent: unknown[] = [];
  const send = async (sentRequest: ReturnType<typeof request>) => {
    sent.push(structuredClone(sentRequest));
    const failure = failures.shift();
    if (failure !== undefined) throw failure;
    return { success: true, nextExpectedRevision: 1n };
  };
  return { send, sent };
}

const noWait = (waits: number[]) => async (ms: number) => void waits.push(ms);

describe('EventStoreDB append retries (no server)', () => {
  it('counts a lost reply, an unreachable or no longer leading node, and a commit timeout as transient', () => {
    expect(isTransient(lostReply())).toBe(true);
    expect(isTransient(unavailable())).toBe(true);
    expect(isTransient(clientError(grpc.ABORTED, 'Operation timed out'))).toBe(true);
    expect(isTransient(clientError(grpc.CANCELLED, 'Cancelled by the server'))).toBe(true);
    expect(isTransient(clientError(grpc.UNKNOWN, 'Leader info available', { exception: 'not-leader', 'leader-endpoint-host': 'node2', 'leader-endpoint-port': '2113' }))).toBe(true);
  });

  it('does not count a conflict, a refusal or a bad request as transient: resending would fail the same way', () => {
    const conflict = clientError(grpc.UNKNOWN, 'WrongExpectedVersion', {
      exception: 'wrong-expected-version',
      'stream-name': 'sandbox.subject-sub_1',
      'expected-version': '3',
      'actual-version': '4',
    });
    expect(conflict).toBeInstanceOf(WrongExpectedVersionError);
    expect(isTransient(conflict)).toBe(false);
    expect(isTransient(clientError(grpc.UNKNOWN, 'Access denied', { exception: 'access-denied' }))).toBe(false);
    expect(isTransient(clientError(grpc.UNAUTHENTICATED, 'Bad credentials'))).toBe(false);
    expect(isTransient(clientError(grpc.INVALID_ARGUMENT, 'Bad request'))).toBe(false);
    // The client cancelling its own call (the subscriber stopping) is no failure of the server.
    expect(isTransient(clientError(grpc.CANCELLED, 'Cancelled on client'))).toBe(false);
    expect(isTransient(new Error('something else'))).toBe(false);
  });

  it.each([['no_stream' as const], [41n], ['any' as const]])('resends the same event ids and expected revision (%s) after lost replies, and answers the send that got through', async (expected) => {
    const { send, sent } = scriptedSend([lostReply(), unavailable()]);
    const waits: number[] = [];
    const answer = await sendWithRetry(send, request(expected), APPEND_RETRY, noWait(waits));
    expect(answer).toEqual({ result: { success: true, nextExpectedRevision: 1n }, attempts: 3 });
    expect(sent).toHaveLength(3);
    for (const resent of sent) expect(resent).toEqual(sent[0]);
    const first = sent[0] as ReturnType<typeof request>;
    expect(first.events.map((event) => event.id)).toEqual(['0b0e6a3e-5f7c-4c61-9a55-2a4b1c7f0f11', '5d3f1e2a-8b4c-4d6e-9f0a-1b2c3d4e5f60']);
    expect(first.expectedRevision).toBe(expected === 'no_stream' ? NO_STREAM : expected === 'any' ? ANY : 41n);
    expect(waits).toEqual([200, 400]);
  });

  it('gives up after the bounded number of sends and throws the last failure', async () => {
    const policy: AppendRetryPolicy = { attempts: 4, firstDelayMs: 200, maxDelayMs: 500 };
    const last = unavailable();
    const { send, sent } = scriptedSend([lostReply(), lostReply(), lostReply(), last, lostReply()]);
    const waits: number[] = [];
    await expect(sendWithRetry(send, request(3n), policy, noWait(waits))).rejects.toBe(last);
    expect(sent).toHaveLength(4);
    // Doubling, capped: the waits are bounded as well as their number.
    expect(waits).toEqual([200, 400, 500]);
  });

  it('sends once and throws at once when the failure is not transient', async () => {
    const denied = clientError(grpc.UNKNOWN, 'Access denied', { exception: 'access-denied' });
    const { send, sent } = scriptedSend([denied]);
    const waits: number[] = [];
    await expect(sendWithRetry(send, request('no_stream'), APPEND_RETRY, noWait(waits))).rejects.toBe(denied);
    expect(sent).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it('sends once when the first send is answered', async () => {
    const { send, sent } = scriptedSend([]);
    expect(await sendWithRetry(send, request(0n))).toMatchObject({ attempts: 1 });
    expect(sent).toHaveLength(1);
  });

  it('waits at most the cap between sends, however many are allowed', () => {
    const policy: AppendRetryPolicy = { attempts: 50, firstDelayMs: 100, maxDelayMs: 2000 };
    expect(Array.from({ length: 6 }, (_, i) => retryDelay(policy, i + 1))).toEqual([100, 200, 400, 800, 1600, 2000]);
    expect(retryDelay(policy, 49)).toBe(2000);
  });
});
