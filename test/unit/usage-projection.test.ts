import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import type { UsageRange } from '../../src/domain/usage.js';
import type { ReadModelStore } from '../../src/ports/read-models.js';
import { readUsage, usageProjection } from '../../src/projections/usage.js';
import { Projector } from '../../src/projector/projector.js';
import { tempDir } from '../support/temp-dir.js';

const november: UsageRange = { from: new Date('2026-11-01T00:00:00Z'), to: new Date('2026-12-01T00:00:00Z'), granularity: 'day' };

describe('usage projection, run by the projector on SQLite', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  /** Runs the usage projection alone until it has handled `position`, then stops. */
  async function project(events: SqliteEventStore, readModels: ReadModelStore, position: bigint) {
    const projector = new Projector(events, readModels, [usageProjection], [], pino({ level: 'silent' }), 10);
    projector.start();
    expect(await projector.waitFor(position, 10_000)).toBe(true);
    await projector.stop();
  }

  it('fills the read model from the whole log on its first start, across pages, and a replay counts nothing twice', async () => {
    const events = new SqliteEventStore(join(dir.path, 'e.db'), 'FULL', { pollIntervalMs: 20 });
    const readModels = new SqliteReadModelStore(join(dir.path, 'r.db'), 'NORMAL');
    // 700 completions (1400 events: several pages), three a minute on each of ten days.
    let position = 0n;
    for (let i = 0; i < 700; i++) {
      const at = new Date(Date.UTC(2026, 10, 1 + (i % 10), 9, Math.floor(i / 30), 0, i % 3)).toISOString();
      ({ position } = await events.appendToStream(
        `assessment-asm_${i}`,
        [
          { id: randomUUID(), type: 'ResponsesSubmitted', data: { assessment_id: `asm_${i}` }, metadata: { key_id: `key_${i % 2}` } },
          { id: randomUUID(), type: 'ScoringCompleted', data: { assessment_id: `asm_${i}`, completed_at: at }, metadata: {} },
        ],
        'no_stream',
      ));
    }
    // Day d (0-based) has the completions i ≡ d (mod 10): 70 of them, all with the key of i's parity.
    const expected = Array.from({ length: 10 }, (_, day) => ({
      key_id: `key_${day % 2}`,
      period: `2026-11-${String(day + 1).padStart(2, '0')}`,
      completed_assessments: 70,
      completed_situational_assessments: 0,
    }));

    await project(events, readModels, position);
    const first = await readUsage(readModels, november, false);
    expect(first.data).toEqual(expected);
    expect(first.total_completed_assessments).toBe(700);
    // Part of a day, to the millisecond: 09:00:00.001 until 09:01, on the 1st (i = 0, 10, 20 at .000, .001, .002 ms).
    const partial = await readUsage(
      readModels,
      { from: new Date('2026-11-01T09:00:00.001Z'), to: new Date('2026-11-01T09:01:00Z'), granularity: 'day' },
      false,
    );
    expect(partial.total_completed_assessments).toBe(2);

    // The checkpoint lost (a crash before it was written): every event comes again, and every document says it holds it already.
    const forgetful: ReadModelStore = Object.assign(Object.create(readModels) as ReadModelStore, {
      checkpoint: async (name: string) => (name === usageProjection.name ? undefined : readModels.checkpoint(name)),
    });
    await project(events, forgetful, position);
    expect(await readUsage(readModels, november, false)).toEqual(first);

    await events.close();
    await readModels.close();
  });

  it('counts nothing twice nor loses a count when a commit is cut short half-way (a store without transactions writes in order)', async () => {
    const events = new SqliteEventStore(join(dir.path, 'e.db'), 'FULL', { pollIntervalMs: 20 });
    const readModels = new SqliteReadModelStore(join(dir.path, 'r.db'), 'NORMAL');
    const complete = async (from: number, to: number) => {
      let position = 0n;
      for (let i = from; i < to; i++) {
        ({ position } = await events.appendToStream(
          `assessment-asm_${i}`,
          [
            { id: randomUUID(), type: 'ResponsesSubmitted', data: { assessment_id: `asm_${i}` }, metadata: { key_id: 'key_a' } },
            {
              id: randomUUID(),
              type: 'ScoringCompleted',
              data: { assessment_id: `asm_${i}`, completed_at: '2026-11-05T10:00:00.000Z' },
              metadata: {},
            },
          ],
          'no_stream',
        ));
      }
      return position;
    };
    await complete(0, 40);
    // The projection's first commit writes the first half of its documents, without its checkpoint, and the server dies.
    let cutShort!: (written: number) => void;
    const written = new Promise<number>((resolve) => {
      cutShort = resolve;
    });
    const dying: ReadModelStore = Object.assign(Object.create(readModels) as ReadModelStore, {
      async commit(name: string, at: bigint, writes: Parameters<ReadModelStore['commit']>[2]) {
        if (name !== usageProjection.name) return;
        const half = Math.ceil(writes.length / 2);
        await readModels.commit('cut-short', at, writes.slice(0, half));
        cutShort(half);
        throw new Error('the server died half-way through a commit');
      },
    });
    const dead = new Projector(events, dying, [usageProjection], [], pino({ level: 'silent' }), 10);
    dead.start();
    expect(await written).toBeGreaterThan(0);
    await dead.stop();
    // More completions, then a restart: the replay runs past what the cut commit wrote.
    await project(events, readModels, await complete(40, 50));
    expect((await readUsage(readModels, november, false)).data).toEqual([
      { key_id: 'key_a', period: '2026-11-05', completed_assessments: 50, completed_situational_assessments: 0 },
    ]);
    await events.close();
    await readModels.close();
  });
});
