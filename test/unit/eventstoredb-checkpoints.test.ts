import { convertToCommandError } from '@eventstore/db-client';
import { describe, expect, it } from 'vitest';
import { CheckpointMark, encodePosition, type StoredEvent } from '../../src/adapters/eventstoredb/mapping.js';
import {
  follow,
  type OpenedSubscription,
  RESUBSCRIBE,
  resubscribeDelay,
  type SubscriptionOutput,
  SubscriptionProgress,
} from '../../src/adapters/eventstoredb/subscription.js';
import type { RecordedEvent } from '../../src/ports/event-store.js';
import { pause } from '../../src/support/pause.js';
import { storedEvent } from '../support/stored-events.js';

const stored = (commit: bigint, type?: string): StoredEvent => storedEvent(commit, { type });
const event = (commit: bigint, type?: string): SubscriptionOutput => ({ event: stored(commit, type) });
const checkpoint = (commit: bigint) => new CheckpointMark({ commit, prepare: commit });
const at = (commit: bigint) => encodePosition({ commit, prepare: commit });

/** The kinds and positions the outputs mean, in turn, to one subscriber. */
function accepted(progress: SubscriptionProgress, outputs: SubscriptionOutput[]) {
  return outputs.map((output) => {
    const item = progress.accept(output, 'sandbox.');
    return item.kind === 'event'
      ? `event ${item.event.id}`
      : item.kind === 'checkpoint'
        ? `checkpoint ${item.position === at(item.position >> 64n) ? item.position >> 64n : item.position}`
        : 'seen';
  });
}

describe('EventStoreDB subscription progress (no server)', () => {
  it('hands over an event at the position of the checkpoint before it (a server without the KDB-744 fix)', () => {
    // The server said it had searched up to 50, then sent the event at 50: the event is new, not seen.
    expect(accepted(new SubscriptionProgress(at(10n)), [checkpoint(50n), event(50n)])).toEqual(['checkpoint 50', 'event e-50']);
    expect(accepted(new SubscriptionProgress(undefined), [checkpoint(50n), event(50n), event(51n)])).toEqual([
      'checkpoint 50',
      'event e-50',
      'event e-51',
    ]);
  });

  it('passes over an event at or before the last one handed over, or before the last checkpoint (a resubscription repeats)', () => {
    const progress = new SubscriptionProgress(at(10n));
    expect(accepted(progress, [event(10n), event(5n), event(20n), event(20n), checkpoint(40n), event(30n), event(40n)])).toEqual([
      'seen',
      'seen',
      'event e-20',
      'seen',
      'checkpoint 40',
      'seen',
      'event e-40',
    ]);
  });

  it('moves a checkpoint only forwards, past events and checkpoints alike', () => {
    const progress = new SubscriptionProgress(undefined);
    expect(
      accepted(progress, [
        checkpoint(30n),
        checkpoint(30n),
        checkpoint(20n),
        event(35n),
        checkpoint(35n),
        checkpoint(34n),
        checkpoint(36n),
      ]),
    ).toEqual(['checkpoint 30', 'seen', 'seen', 'event e-35', 'seen', 'seen', 'checkpoint 36']);
  });

  it('resumes past both the last event and the last checkpoint', () => {
    const progress = new SubscriptionProgress(undefined);
    expect(progress.resumeAfter).toBeUndefined();
    progress.accept(checkpoint(30n), 'sandbox.');
    expect(progress.resumeAfter).toBe(at(30n));
    progress.accept(event(45n), 'sandbox.');
    expect(progress.resumeAfter).toBe(at(45n));
    progress.accept(checkpoint(60n), 'sandbox.');
    expect(progress.resumeAfter).toBe(at(60n));
    expect(new SubscriptionProgress(at(7n)).resumeAfter).toBe(at(7n));
  });

  it("passes over the server's own records in our streams (a deleted stream's tombstone) and outputs without an event", () => {
    expect(accepted(new SubscriptionProgress(undefined), [event(12n, '$streamDeleted'), {}, event(13n)])).toEqual([
      'seen',
      'seen',
      'event e-13',
    ]);
  });
});

/** gRPC status codes, as @grpc/grpc-js numbers them. */
const grpc = { CANCELLED: 1, UNAVAILABLE: 14, PERMISSION_DENIED: 7 } as const;
const dropped = (code: number, details: string) =>
  convertToCommandError(Object.assign(new Error(details), { code, details, metadata: { getMap: () => ({}) } }));

type Script = { outputs: SubscriptionOutput[]; end: 'ends' | Error | 'stays open' };

/**
 * Subscriptions that play `scripts` in turn, each ending as told (or staying open until closed); it records
 * where each was opened from and how many were closed.
 */
function scripted(scripts: Script[]) {
  const openedAfter: (bigint | undefined)[] = [];
  const closed = new Set<number>();
  const open = (after: bigint | undefined): OpenedSubscription => {
    const index = openedAfter.push(after);
    const script = scripts.shift() ?? { outputs: [], end: 'stays open' };
    let close: () => void = () => undefined;
    const closedNow = new Promise<void>((resolve) => (close = resolve));
    return {
      output: (async function* () {
        yield* script.outputs;
        if (script.end instanceof Error) throw script.end;
        if (script.end === 'stays open') await closedNow;
      })(),
      close: async () => {
        closed.add(index);
        close();
      },
    };
  };
  return { open, openedAfter, closed: () => closed.size };
}

describe('EventStoreDB catch-up subscription, resubscribing (no server)', () => {
  type Seen = { seen: string[]; waits: number[] };

  /** Runs `follow` over `scripts` until `stopWhen` says so; answers what it handed over, the waits it made and where it opened. */
  async function run(scripts: Script[], after: bigint | undefined, stopWhen: (so: Seen) => boolean) {
    const subscriptions = scripted(scripts);
    const controller = new AbortController();
    const so: Seen = { seen: [], waits: [] };
    const check = () => stopWhen(so) && controller.abort();
    const onCheckpoint = (position: bigint) => {
      so.seen.push(`checkpoint ${position >> 64n}`);
      return check();
    };
    const wait = async (ms: number) => {
      so.waits.push(ms);
      check();
    };
    for await (const e of follow(
      subscriptions.open,
      'sandbox.',
      { ...(after !== undefined && { after }), signal: controller.signal, onCheckpoint },
      RESUBSCRIBE,
      wait,
    )) {
      so.seen.push(`event ${(e as RecordedEvent).id}`);
      check();
    }
    return { ...so, openedAfter: subscriptions.openedAfter, closed: subscriptions.closed() };
  }

  it('hands over the event at a checkpoint, then resubscribes past both after the server drops it', async () => {
    const result = await run(
      [
        { outputs: [checkpoint(50n), event(50n)], end: dropped(grpc.UNAVAILABLE, 'No connection established') },
        { outputs: [event(50n), checkpoint(70n)], end: 'ends' },
        { outputs: [event(80n)], end: 'stays open' },
      ],
      at(10n),
      ({ seen }) => seen.includes('event e-80'),
    );
    expect(result.seen).toEqual(['checkpoint 50', 'event e-50', 'checkpoint 70', 'event e-80']);
    expect(result.openedAfter).toEqual([at(10n), at(50n), at(70n)]);
    expect(result.closed).toBe(3);
  });

  it('waits before resubscribing after a normal end as after a drop, doubling while nothing new comes and starting over once something does', async () => {
    const ends = (outputs: SubscriptionOutput[] = []): Script => ({ outputs, end: 'ends' });
    const result = await run(
      [
        ends(),
        { outputs: [], end: dropped(grpc.CANCELLED, 'Cancelled by the server') },
        ends([event(20n)]),
        ends([event(20n)]),
        ends(),
        ends(),
        ends(),
        ends(),
      ],
      undefined,
      ({ waits }) => waits.length === 8,
    );
    expect(result.seen).toEqual(['event e-20']);
    expect(result.waits).toEqual([500, 1000, 500, 1000, 2000, 4000, 8000, 10_000]);
    expect(resubscribeDelay(RESUBSCRIBE, 30)).toBe(10_000);
  });

  it('ends at once when stopped during its wait before resubscribing', async () => {
    const subscriptions = scripted([{ outputs: [event(20n)], end: 'ends' }]);
    const controller = new AbortController();
    // A wait of a minute: stop() must cut it short, or the test times out.
    const wait = (ms: number, signal: AbortSignal) => {
      setImmediate(() => controller.abort());
      return pause(ms, signal);
    };
    const seen: string[] = [];
    for await (const e of follow(
      subscriptions.open,
      'sandbox.',
      { signal: controller.signal },
      { firstDelayMs: 60_000, maxDelayMs: 60_000 },
      wait,
    ))
      seen.push(e.id);
    expect(seen).toEqual(['e-20']);
    expect(subscriptions.openedAfter).toHaveLength(1);
  });

  it('closes the subscription it is reading when stopped', async () => {
    const subscriptions = scripted([{ outputs: [event(20n)], end: 'stays open' }]);
    const controller = new AbortController();
    for await (const _ of follow(subscriptions.open, 'sandbox.', { signal: controller.signal })) controller.abort();
    expect(subscriptions.closed()).toBe(1);
    expect(subscriptions.openedAfter).toHaveLength(1);
  });

  it('throws a failure that is not a drop, and stops resubscribing', async () => {
    const denied = dropped(grpc.PERMISSION_DENIED, 'Access denied');
    await expect(run([{ outputs: [event(20n)], end: denied }], undefined, () => false)).rejects.toBe(denied);
  });
});
