import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import { type AssessmentContext, scoreAssessment, submitResponses } from '../../src/commands/assessments.js';
import { toNewEvents } from '../../src/commands/handle-command.js';
import { assessmentPointer, assessmentStream, decideStartAssessment, type ResponsesSubmitted } from '../../src/domain/assessment.js';
import type { EventStore, Recorded } from '../../src/ports/event-store.js';
import { EncryptingEventStore } from '../../src/privacy/encrypting-event-store.js';
import { projections } from '../../src/projections/index.js';
import { scoringReactor } from '../../src/projections/scoring.js';
import { Projector } from '../../src/projector/projector.js';
import { loadStoreConfig } from '../../src/settings/config.js';
import { openDataKeys } from '../../src/wiring/environments.js';
import { interleaving } from '../support/interleaving.js';
import { batches, knownResponses } from '../support/known-answers.js';
import { tempDir } from '../support/temp-dir.js';

/** The hash of the client secret the start command mints; the domain only carries it. */
const SECRET_HASH = 'c'.repeat(64);

const now = new Date('2026-11-21T10:00:00.000Z');

/** The 76 answers as an earlier version recorded them: one batch without its count, scored later by the reactor. */
const uncountedBatch: ResponsesSubmitted = {
  type: 'ResponsesSubmitted',
  data: { assessment_id: 'asm_1', subject_id: 'sub_1', submitted_at: now.toISOString(), pii: { responses: knownResponses } },
};

describe('responses and scoring under concurrency and replay', () => {
  let dir: ReturnType<typeof tempDir>;
  let sqlite: SqliteEventStore;
  let readModels: SqliteReadModelStore;
  /** The log as stored (personal fields sealed), which the projector reads as the server's does. */
  let log: EventStore;
  let env: AssessmentContext & { readModels: SqliteReadModelStore; projector: Projector };
  const projector = () =>
    new Projector(log, readModels, projections, [scoringReactor(env.events, 'mn76-v1', () => now)], pino({ level: 'silent' }), 10);

  beforeEach(async () => {
    dir = tempDir();
    sqlite = new SqliteEventStore(join(dir.path, 'e.db'), 'FULL', { pollIntervalMs: 20 });
    readModels = new SqliteReadModelStore(join(dir.path, 'r.db'), 'NORMAL');
    log = interleaving(sqlite);
    const dataKeys = await openDataKeys(loadStoreConfig({ NATURE_DATA_DIR: dir.path }), 'test');
    env = {
      events: new EncryptingEventStore(log, dataKeys),
      readModels,
      projector: undefined as unknown as Projector,
      dataKeys,
      scoringVersion: 'mn76-v1',
    };
    env.projector = projector();
    env.projector.start();
    const started = decideStartAssessment(
      assessmentPointer({
        assessment_id: 'asm_1',
        subject_id: 'sub_1',
        requested_language: 'en',
        client_secret_hash: SECRET_HASH,
        event_id: 'evt_1',
        now,
      }),
    );
    await sqlite.appendToStream(assessmentStream('asm_1'), toNewEvents(started, {}), 'no_stream');
  });
  afterEach(async () => {
    await env.projector.stop();
    await sqlite.close();
    await readModels.close();
    await env.dataKeys.close();
    dir.cleanup();
  });

  const streamEvents = async () => (await sqlite.readStream(assessmentStream('asm_1'))).events;
  const scoringEvents = async () => (await streamEvents()).filter((e) => e.type === 'ScoringCompleted');
  const last = async () => (await sqlite.readAll({ limit: 1_000_000 })).at(-1)!.position;
  /** Stops the projector and runs a fresh one over the whole log, as after a rebuild of the read models. */
  const replayFromStart = async () => {
    expect(await env.projector.waitFor(await last(), 5000)).toBe(true);
    await env.projector.stop();
    for (const name of ['subjects', 'assessments', 'profiles', 'scoring']) await readModels.commit(name, 0n, []);
    env.projector = projector();
    env.projector.start();
    expect(await env.projector.waitFor(await last(), 5000)).toBe(true);
  };

  it('loses nothing when four batches truly interleave on one assessment, and the one that completes it scores it in its own append', async () => {
    const results = await Promise.all(
      batches(4).map(async (batch) => (await submitResponses(env, 'sub_1', 'asm_1', batch, {}, now)).assessment),
    );
    expect(Math.max(...results.map((a) => Object.keys(a.answers).length))).toBe(76);
    // The completing batch answers as it left the assessment (scoring); the read models already show it completed.
    expect(results.map((a) => a.status).sort()).toEqual(['in_progress', 'in_progress', 'in_progress', 'scoring']);
    expect(await readModels.get('assessments', 'asm_1')).toMatchObject({ status: 'completed' });
    const events = await streamEvents();
    expect(events.filter((e) => e.type === 'ResponsesSubmitted')).toHaveLength(4);
    const scored = events.findIndex((e) => e.type === 'ScoringCompleted');
    expect(events.slice(scored - 1).map((e) => e.type)).toEqual(['ResponsesSubmitted', 'ScoringCompleted']);
    expect(events[scored - 1]!.data).toMatchObject({ responses_received: 76 });
  });

  it('scores once when the same completing answers are sent at once: the others find it completed', async () => {
    const outcomes = await Promise.allSettled([1, 2, 3].map(() => submitResponses(env, 'sub_1', 'asm_1', knownResponses, {}, now)));
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
    for (const outcome of outcomes.filter((o) => o.status === 'rejected'))
      expect(outcome.reason).toMatchObject({ code: 'assessment_not_open' });
    expect(await scoringEvents()).toHaveLength(1);
  });

  it('scores an assessment left waiting in scoring once when scoring runs twice, even concurrently', async () => {
    await env.projector.stop();
    await env.events.appendToStream(assessmentStream('asm_1'), toNewEvents([uncountedBatch], {}), 0n);
    await Promise.all([scoreAssessment(env.events, 'asm_1', 'mn76-v1', now), scoreAssessment(env.events, 'asm_1', 'mn76-v1', now)]);
    await scoreAssessment(env.events, 'asm_1', 'mn76-v1', now);
    expect(await scoringEvents()).toHaveLength(1);
  });

  it('has the reactor score an assessment left waiting in scoring, once, also when the whole log is replayed', async () => {
    const batch = await env.events.appendToStream(assessmentStream('asm_1'), toNewEvents([uncountedBatch], {}), 0n);
    await expect.poll(scoringEvents, { timeout: 5000 }).toHaveLength(1);
    await replayFromStart();
    // The reactor has seen the batch again (its checkpoint follows its reactions).
    await expect.poll(() => readModels.checkpoint('scoring'), { timeout: 5000 }).toBeGreaterThanOrEqual(batch.position);
    expect(await scoringEvents()).toHaveLength(1);
    expect(await readModels.get('assessments', 'asm_1')).toMatchObject({ status: 'completed' });
  });

  it('scores once when the projector replays the whole log from the start', async () => {
    await submitResponses(env, 'sub_1', 'asm_1', knownResponses, {}, now);
    expect(await scoringEvents()).toHaveLength(1);
    await replayFromStart();
    expect(await scoringEvents()).toHaveLength(1);
    const profileId = (await scoringEvents())[0]!.data as { profile_id: string };
    expect(await readModels.get('profiles', profileId.profile_id)).toMatchObject({ subject_id: 'sub_1', assessment_id: 'asm_1' });
  });
});

describe('the scoring reactor', () => {
  it('acts, from the event alone, only on batches recorded without their count', () => {
    const reactor = scoringReactor({} as EventStore, 'mn76-v1', () => now);
    const batch = (data: object) =>
      ({ type: 'ResponsesSubmitted', data: { ...uncountedBatch.data, ...data } }) as Recorded<ResponsesSubmitted>;
    for (const responses_received of [1, 75, 76]) expect(reactor.acts!(batch({ responses_received }))).toBe(false);
    expect(reactor.acts!(batch({}))).toBe(true);
  });
});
