import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import { FencedOffError, type ReadModelStore } from '../../src/ports/read-models.js';
import { type Clocks, type Lead, Leadership } from '../../src/projector/leadership.js';
import { tempDir } from '../support/temp-dir.js';

/** Short enough for a test; a replica renews every third of it. */
const TTL_MS = 600;

describe('leadership', () => {
  let dir: ReturnType<typeof tempDir>;
  const running: { leadership: Leadership; store: SqliteReadModelStore }[] = [];
  /** What every replica's led services did, in order: `a lead 1`, `a follow`, … */
  let timeline: string[];
  beforeEach(() => {
    dir = tempDir();
    timeline = [];
  });
  afterEach(async () => {
    for (const { leadership, store } of running.splice(0)) {
      await leadership.stop();
      await store.close();
    }
    dir.cleanup();
  });

  type LeaseStore = Pick<ReadModelStore, 'acquireLease' | 'releaseLease' | 'checkFence'>;
  /** Each replica's current term, as `led.lead` was handed it. */
  const terms = new Map<string, Lead>();

  /**
   * A replica: its own connection to the shared read-model file, through `wrap` (to make its store misbehave),
   * timed by `clocks` (to freeze or move one of them).
   */
  const replica = (name: string, wrap: (store: LeaseStore) => LeaseStore = (store) => store, clocks?: Clocks) => {
    const store = new SqliteReadModelStore(join(dir.path, 'read.db'), 'NORMAL');
    const leadership = new Leadership(
      wrap(store),
      { name: 'leader', holder: name, ttlMs: TTL_MS },
      {
        lead: (term) => {
          terms.set(name, term);
          timeline.push(`${name} lead ${term.fence.token}`);
        },
        follow: async () => void timeline.push(`${name} follow`),
      },
      pino({ level: 'silent' }),
      clocks,
    );
    running.push({ leadership, store });
    return leadership;
  };
  const hanging =
    (hang: () => boolean) =>
    (store: LeaseStore): LeaseStore => ({
      acquireLease: (...args) => (hang() ? new Promise(() => undefined) : store.acquireLease(...args)),
      releaseLease: (...args) => store.releaseLease(...args),
      checkFence: (fence) => store.checkFence(fence),
    });

  /** The store, telling `onAcquire` of each attempt to take or renew the lease. */
  const counted = (store: LeaseStore, onAcquire: () => void): LeaseStore => ({
    acquireLease: (...args) => {
      onAcquire();
      return store.acquireLease(...args);
    },
    releaseLease: (...args) => store.releaseLease(...args),
    checkFence: (fence) => store.checkFence(fence),
  });

  it('lets one replica lead while the others follow; one that stops hands over at once, with a new token', async () => {
    const a = replica('a');
    a.start();
    await expect.poll(() => a.role).toBe('leader');
    let attempts = 0;
    const b = replica('b', (store) => counted(store, () => attempts++));
    b.start();
    // b tries as often as a renews: after a dozen tries (two lease lengths), a still holds the lease.
    await expect.poll(() => attempts, { timeout: 30_000 }).toBeGreaterThanOrEqual(12);
    expect(b.role).toBe('follower');
    await a.stop();
    await expect.poll(() => b.role).toBe('leader');
    expect(timeline).toEqual(['a lead 1', 'a follow', 'b lead 2']);
  });

  it('steps down when it cannot renew in time, before another replica can take the lease', async () => {
    let hang = false;
    const a = replica(
      'a',
      hanging(() => hang),
    );
    a.start();
    await expect.poll(() => a.role).toBe('leader');
    const b = replica('b');
    b.start();
    // The store stops answering a (a network partition, a stalled server): a stops what it runs on its own.
    hang = true;
    await expect.poll(() => b.role, { timeout: 5000 }).toBe('leader');
    expect(a.role).toBe('follower');
    expect(timeline).toEqual(['a lead 1', 'a follow', 'b lead 2']);
  });

  it('follows as soon as a renewal finds the lease taken by another replica', async () => {
    let refused = false;
    const a = replica('a', (store) => ({
      acquireLease: (...args) => (refused ? Promise.resolve(undefined) : store.acquireLease(...args)),
      releaseLease: (...args) => store.releaseLease(...args),
      checkFence: (fence) => store.checkFence(fence),
    }));
    a.start();
    await expect.poll(() => a.role).toBe('leader');
    refused = true;
    await expect.poll(() => a.role).toBe('follower');
    expect(timeline).toEqual(['a lead 1', 'a follow']);
  });

  it('steps down by its wall clock when its monotonic clock stands still (a frozen VM), though no timer of its lease fires', async () => {
    let hang = false;
    let frozenAt: number | undefined;
    let skewMs = 0;
    const clocks: Clocks = { monotonic: () => frozenAt ?? performance.now(), wall: () => Date.now() + skewMs };
    const a = replica(
      'a',
      hanging(() => hang),
      clocks,
    );
    a.start();
    await expect.poll(() => a.role).toBe('leader');
    // The VM is frozen for a whole lease and thawed: the monotonic clock did not move, the wall clock did.
    hang = true;
    frozenAt = performance.now();
    skewMs = TTL_MS;
    await expect.poll(() => a.role, { timeout: 5000 }).toBe('follower');
    expect(timeline).toEqual(['a lead 1', 'a follow']);
  });

  it("guards a leader's side effects: refused once the store has a newer holder, or once its term passed by either clock", async () => {
    let skewMs = 0;
    const a = replica('a', undefined, { monotonic: () => performance.now(), wall: () => Date.now() + skewMs });
    a.start();
    await expect.poll(() => a.role).toBe('leader');
    const first = terms.get('a')!;
    await expect(first.guard()).resolves.toBeUndefined();
    // Its wall clock jumped past the term before any renewal ran: no side effect starts, and the term ends (what
    // it ran stopped on the refusal), so the next renewal, with the clock set right, starts a term that runs it again.
    skewMs = TTL_MS;
    await expect(first.guard()).rejects.toBeInstanceOf(FencedOffError);
    skewMs = 0;
    await expect.poll(() => timeline).toEqual(['a lead 1', 'a follow', 'a lead 1']);
    await expect(terms.get('a')!.guard()).resolves.toBeUndefined();
    // The store's lease passed on while this replica has not noticed yet: the store refuses the old fence.
    const second = terms.get('a')!;
    const store = new SqliteReadModelStore(join(dir.path, 'read.db'), 'NORMAL');
    try {
      await store.releaseLease('leader', 'a');
      expect(await store.acquireLease('leader', 'b', 60_000)).toBeGreaterThan(second.fence.token);
      await expect(second.guard()).rejects.toBeInstanceOf(FencedOffError);
    } finally {
      await store.close();
    }
  });
});
