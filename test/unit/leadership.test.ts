import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import { Leadership } from '../../src/leadership.js';
import type { ReadModelStore } from '../../src/ports/read-models.js';
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

  /** A replica: its own connection to the shared read-model file, through `wrap` (to make its store misbehave). */
  const replica = (name: string, wrap: (store: ReadModelStore) => Pick<ReadModelStore, 'acquireLease' | 'releaseLease'> = (store) => store) => {
    const store = new SqliteReadModelStore(join(dir.path, 'read.db'), 'NORMAL');
    const leadership = new Leadership(
      wrap(store),
      { name: 'leader', holder: name, ttlMs: TTL_MS },
      {
        lead: (fence) => void timeline.push(`${name} lead ${fence.token}`),
        follow: async () => void timeline.push(`${name} follow`),
      },
      pino({ level: 'silent' }),
    );
    running.push({ leadership, store });
    return leadership;
  };

  it('lets one replica lead while the others follow; one that stops hands over at once, with a new token', async () => {
    const a = replica('a');
    a.start();
    await expect.poll(() => a.role).toBe('leader');
    const b = replica('b');
    b.start();
    // b tries as often as a renews, over two lease lengths: a keeps the lease.
    await new Promise((resolve) => setTimeout(resolve, TTL_MS * 2));
    expect(b.role).toBe('follower');
    await a.stop();
    await expect.poll(() => b.role).toBe('leader');
    expect(timeline).toEqual(['a lead 1', 'a follow', 'b lead 2']);
  });

  it('steps down when it cannot renew in time, before another replica can take the lease', async () => {
    let hang = false;
    const a = replica('a', (store) => ({
      acquireLease: (...args) => (hang ? new Promise(() => undefined) : store.acquireLease(...args)),
      releaseLease: (...args) => store.releaseLease(...args),
    }));
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
    }));
    a.start();
    await expect.poll(() => a.role).toBe('leader');
    refused = true;
    await expect.poll(() => a.role).toBe('follower');
    expect(timeline).toEqual(['a lead 1', 'a follow']);
  });
});
