import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import { startAssessment } from '../../src/commands/assessments.js';
import type { CommandContext } from '../../src/commands/context.js';
import { toNewEvents } from '../../src/commands/handle-command.js';
import { createSubject } from '../../src/commands/subjects.js';
import { assessmentPointer, assessmentStream } from '../../src/domain/assessment.js';
import { subjectStream } from '../../src/domain/subject.js';
import { appendInSequence, type EventStore } from '../../src/ports/event-store.js';
import { EncryptingEventStore } from '../../src/privacy/encrypting-event-store.js';
import { projections } from '../../src/projections/index.js';
import { Projector } from '../../src/projector/projector.js';
import { loadStoreConfig } from '../../src/settings/config.js';
import { openDataKeys } from '../../src/wiring/environments.js';
import { interleaving } from '../support/interleaving.js';
import { tempDir } from '../support/temp-dir.js';

/** The hash of the client secret the start command mints; the domain only carries it. */
const SECRET_HASH = 'c'.repeat(64);

/**
 * A store without transactions across streams, as EventStoreDB: a start's two appends land one after the other, and
 * appends to assessment streams arrive late, as over a network, widening the gap between them.
 */
function slowAssessmentAppends(store: EventStore): EventStore {
  const slow: EventStore = {
    ...store,
    appendToStream: async (name, events, expected) => {
      if (name.startsWith('assessment-')) await new Promise((resolve) => setTimeout(resolve, 30));
      return store.appendToStream(name, events, expected);
    },
    appendToStreams: (appends) => appendInSequence(slow, appends),
  };
  return slow;
}

describe('starting assessments', () => {
  let dir: ReturnType<typeof tempDir>;
  let sqlite: SqliteEventStore;
  let readModels: SqliteReadModelStore;
  let env: CommandContext & { projector: Projector };
  const now = new Date('2026-11-21T10:00:00.000Z');

  beforeEach(async () => {
    dir = tempDir();
    sqlite = new SqliteEventStore(join(dir.path, 'e.db'), 'FULL', { pollIntervalMs: 20 });
    readModels = new SqliteReadModelStore(join(dir.path, 'r.db'), 'NORMAL');
    const log = slowAssessmentAppends(interleaving(sqlite));
    const dataKeys = await openDataKeys(loadStoreConfig({ NATURE_DATA_DIR: dir.path }), 'test');
    // Commands seal personal fields; the projector reads the log as stored, as the server's does.
    env = {
      events: new EncryptingEventStore(log, dataKeys),
      projector: new Projector(log, readModels, projections, [], pino({ level: 'silent' })),
      dataKeys,
    };
    env.projector.start();
  });
  afterEach(async () => {
    await env.projector.stop();
    await sqlite.close();
    await readModels.close();
    await env.dataKeys.close();
    dir.cleanup();
  });

  const subject = () =>
    createSubject(
      env,
      {
        external_subject_id: `e-${Math.random()}`,
        metadata: {},
        consent: { text_version: 'v', granted_at: now.toISOString(), ui_hash: `sha256:${'0'.repeat(64)}` },
      },
      {},
      now,
    );

  it('opens one assessment when starts truly interleave; the others are told which one is open', async () => {
    const { id } = await subject();
    const outcomes = await Promise.allSettled(
      [0, 1, 2].map(() => startAssessment(env, id, { language: 'en', resultVisible: false }, {}, now)),
    );
    const opened = outcomes
      .filter((o) => o.status === 'fulfilled')
      .map((o) => (o as PromiseFulfilledResult<{ assessment: { id: string } }>).value.assessment.id);
    expect(opened).toHaveLength(1);
    for (const refused of outcomes.filter((o) => o.status === 'rejected')) {
      expect((refused as PromiseRejectedResult).reason).toMatchObject({
        code: 'assessment_in_progress',
        details: { assessment_id: opened[0] },
      });
    }
  });

  it('completes a pointer whose stream was never written (a crash between the appends), which then counts as open', async () => {
    const { id } = await subject();
    const pointer = assessmentPointer({
      assessment_id: 'asm_01M7ZZZZZZZZZZZZZZZZZZZZZZ',
      subject_id: id,
      requested_language: 'fr',
      client_secret_hash: SECRET_HASH,
      event_id: 'evt_1',
      now,
    });
    const { revision } = await sqlite.readStream(subjectStream(id));
    await sqlite.appendToStream(subjectStream(id), toNewEvents([{ type: 'AssessmentOpened', data: pointer }], {}), revision);

    await expect(startAssessment(env, id, { language: 'en', resultVisible: false }, {}, now)).rejects.toMatchObject({
      code: 'assessment_in_progress',
      details: { assessment_id: pointer.assessment_id },
    });
    const { events } = await sqlite.readStream(assessmentStream(pointer.assessment_id));
    expect(events.map((e) => [e.type, (e.data as { requested_language: string }).requested_language])).toEqual([
      ['AssessmentStarted', 'fr'],
    ]);
  });
});
