import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { projections } from '../../projections/index.js';
import { scoringReactor } from '../../projections/scoring.js';
import { SqliteDataKeyStore } from '../../src/adapters/sqlite/data-key-store.js';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import { scoreAssessment, submitResponses } from '../../src/commands/assessments.js';
import { toNewEvents } from '../../src/commands/handle-command.js';
import { assessmentPointer, assessmentStream, decideStartAssessment } from '../../src/domain/assessment.js';
import type { CommandContext } from '../../src/commands/context.js';
import { Projector } from '../../src/projector.js';
import { batches, knownResponses } from '../support/known-answers.js';
import { interleaving } from '../support/interleaving.js';
import { tempDir } from '../support/temp-dir.js';

const now = new Date('2026-11-21T10:00:00.000Z');

describe('responses and scoring under concurrency and replay', () => {
  let dir: ReturnType<typeof tempDir>;
  let sqlite: SqliteEventStore;
  let readModels: SqliteReadModelStore;
  let env: CommandContext & { readModels: SqliteReadModelStore; projector: Projector };
  const projector = (events = env.events) =>
    new Projector(events, readModels, projections, [scoringReactor(events, 'mn76-v1', () => now)], pino({ level: 'silent' }), 10);

  beforeEach(async () => {
    dir = tempDir();
    sqlite = new SqliteEventStore(join(dir.path, 'e.db'), 'FULL', { pollIntervalMs: 20 });
    readModels = new SqliteReadModelStore(join(dir.path, 'r.db'), 'NORMAL');
    const events = interleaving(sqlite);
    env = { events, readModels, projector: undefined as unknown as Projector, dataKeys: new SqliteDataKeyStore(join(dir.path, 'k.db'), 'FULL') };
    env.projector = projector();
    env.projector.start();
    const started = decideStartAssessment(assessmentPointer({ assessment_id: 'asm_1', subject_id: 'sub_1', requested_language: 'en', now }));
    await sqlite.appendToStream(assessmentStream('asm_1'), toNewEvents(started, {}), 'no_stream');
  });
  afterEach(async () => {
    await env.projector.stop();
    await sqlite.close();
    await readModels.close();
    await env.dataKeys.close();
    dir.cleanup();
  });

  const scoringEvents = async () => (await sqlite.readStream(assessmentStream('asm_1'))).events.filter((e) => e.type === 'ScoringCompleted');

  it('loses nothing when four batches truly interleave on one assessment', async () => {
    const results = await Promise.all(batches(4).map((batch) => submitResponses(env, 'sub_1', 'asm_1', batch, {}, now)));
    expect(Math.max(...results.map((a) => Object.keys(a.answers).length))).toBe(76);
    const { events } = await sqlite.readStream(assessmentStream('asm_1'));
    expect(events.filter((e) => e.type === 'ResponsesSubmitted')).toHaveLength(4);
  });

  it('scores once when scoring runs twice, even concurrently', async () => {
    await env.projector.stop();
    await submitResponses(env, 'sub_1', 'asm_1', knownResponses, {}, now);
    await Promise.all([scoreAssessment(env.events, 'asm_1', 'mn76-v1', now), scoreAssessment(env.events, 'asm_1', 'mn76-v1', now)]);
    await scoreAssessment(env.events, 'asm_1', 'mn76-v1', now);
    expect(await scoringEvents()).toHaveLength(1);
  });

  it('scores once when the projector replays the whole log from the start', async () => {
    await submitResponses(env, 'sub_1', 'asm_1', knownResponses, {}, now);
    const last = async () => (await sqlite.readAll({ limit: 1_000_000 })).at(-1)!.position;
    await expect.poll(scoringEvents, { timeout: 5000 }).toHaveLength(1);
    expect(await env.projector.waitFor(await last(), 5000)).toBe(true);
    await env.projector.stop();
    for (const name of ['subjects', 'assessments', 'profiles', 'scoring']) await readModels.commit(name, 0n, []);
    env.projector = projector();
    env.projector.start();
    expect(await env.projector.waitFor(await last(), 5000)).toBe(true);
    expect(await scoringEvents()).toHaveLength(1);
    const profileId = (await scoringEvents())[0]!.data as { profile_id: string };
    expect(await readModels.get('profiles', profileId.profile_id)).toMatchObject({ subject_id: 'sub_1', assessment_id: 'asm_1' });
  });
});
