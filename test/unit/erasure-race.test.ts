import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { startAssessment, submitResponses } from '../../src/commands/assessments.js';
import { createSubject, eraseSubject } from '../../src/commands/subjects.js';
import { DomainError } from '../../src/domain/errors.js';
import type { DataKeyStore } from '../../src/ports/data-keys.js';
import type { EventStore } from '../../src/ports/event-store.js';
import { EncryptingEventStore } from '../../src/privacy/encrypting-event-store.js';
import { loadStoreConfig } from '../../src/settings/config.js';
import { openDataKeys } from '../../src/wiring/environments.js';
import { tempDir } from '../support/temp-dir.js';

/** The store, with the next append of a batch held until `release`: a PATCH decided and sealed, not yet committed. */
function holdingNextBatch(store: EventStore) {
  let hold: { arrived: () => void; release: Promise<void> } | undefined;
  const control = {
    arm(): { arrived: Promise<void>; release: () => void } {
      let release!: () => void;
      let arrived!: () => void;
      const arrival = new Promise<void>((resolve) => (arrived = resolve));
      hold = { arrived, release: new Promise<void>((resolve) => (release = resolve)) };
      return { arrived: arrival, release };
    },
  };
  const held: EventStore = {
    ...store,
    appendToStream: async (stream, events, expected) => {
      const current = hold;
      if (current !== undefined && events.some((event) => event.type === 'ResponsesSubmitted')) {
        hold = undefined;
        current.arrived();
        await current.release;
      }
      return store.appendToStream(stream, events, expected);
    },
    appendToStreams: (appends) => store.appendToStreams(appends),
    readStream: (name, options) => store.readStream(name, options),
    readAll: (options) => store.readAll(options),
    subscribeToAll: (options) => store.subscribeToAll(options),
    ping: () => store.ping(),
    close: () => store.close(),
  };
  return { held, control };
}

describe('an erasure racing a batch', () => {
  let dir: ReturnType<typeof tempDir>;
  let sqlite: SqliteEventStore;
  let dataKeys: DataKeyStore;
  beforeEach(async () => {
    dir = tempDir();
    sqlite = new SqliteEventStore(join(dir.path, 'e.db'), 'FULL', { pollIntervalMs: 20 });
    dataKeys = await openDataKeys(loadStoreConfig({ NATURE_DATA_DIR: dir.path }), 'test');
  });
  afterEach(async () => {
    await sqlite.close();
    await dataKeys.close();
    dir.cleanup();
  });

  it('refuses the batch with 410 subject_erased when the erasure commits between its decision and its append: nothing lands after SubjectErased', async () => {
    const { held, control } = holdingNextBatch(sqlite);
    const env = {
      events: new EncryptingEventStore(held, dataKeys),
      dataKeys,
      projector: { waitFor: async () => true },
      scoringVersion: 'mn76-v2',
    };
    const consent = { text_version: 'v1', granted_at: '2026-11-01T00:00:00Z', ui_hash: `sha256:${'0'.repeat(64)}` };
    const subject = await createSubject(env, { external_subject_id: 'emp-race', metadata: {}, consent }, {}, new Date());
    const { assessment } = await startAssessment(env, subject.id, { language: 'en', resultVisible: false }, {}, new Date());

    const gate = control.arm();
    const batch = submitResponses(env, subject.id, assessment.id, [{ item_id: 'mn_001', value: 3 }], {}, new Date()).catch(
      (error: unknown) => error,
    );
    await gate.arrived;
    await eraseSubject(env, subject.id, {}, new Date());
    gate.release();

    const refused = await batch;
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'subject_erased' });
    const log = await sqlite.readAll({ limit: 1000 });
    const erasedAt = log.findIndex((event) => event.type === 'SubjectErased');
    // The subject's streams end with it (its external id's release, the erasure's own step, follows elsewhere).
    const own = [`subject-${subject.id}`, `assessment-${assessment.id}`];
    expect(log.slice(erasedAt + 1).filter((event) => own.includes(event.streamName))).toEqual([]);
    expect(log.filter((event) => event.type === 'ResponsesSubmitted')).toEqual([]);
    // The erasure closed the open assessment first, saying why.
    expect(log.find((event) => event.type === 'AssessmentAbandoned')?.data).toMatchObject({
      assessment_id: assessment.id,
      reason: 'erasure',
    });
  });
});
