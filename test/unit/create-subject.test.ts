import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import type { CommandContext } from '../../src/commands/context.js';
import { createSubject } from '../../src/commands/subjects.js';
import { DomainError } from '../../src/domain/errors.js';
import { externalIdStream, subjectStream } from '../../src/domain/subject.js';
import { EncryptingEventStore } from '../../src/privacy/encrypting-event-store.js';
import { projections } from '../../src/projections/index.js';
import { Projector } from '../../src/projector/projector.js';
import { loadStoreConfig } from '../../src/settings/config.js';
import { openDataKeys } from '../../src/wiring/environments.js';
import { interleaving } from '../support/interleaving.js';
import { tempDir } from '../support/temp-dir.js';

describe('createSubject', () => {
  let dir: ReturnType<typeof tempDir>;
  let env: CommandContext & { readModels: SqliteReadModelStore; projector: Projector };
  let sqlite: SqliteEventStore;
  beforeEach(async () => {
    dir = tempDir();
    sqlite = new SqliteEventStore(join(dir.path, 'e.db'), 'FULL', { pollIntervalMs: 20 });
    const readModels = new SqliteReadModelStore(join(dir.path, 'r.db'), 'NORMAL');
    const log = interleaving(sqlite);
    // Commands seal personal fields; the projector reads the log as stored, as the server's does.
    const projector = new Projector(log, readModels, projections, [], pino({ level: 'silent' }));
    projector.start();
    const dataKeys = await openDataKeys(loadStoreConfig({ NATURE_DATA_DIR: dir.path }), 'test');
    env = { events: new EncryptingEventStore(log, dataKeys), readModels, projector, dataKeys };
  });
  afterEach(async () => {
    await env.projector.stop();
    await env.events.close();
    await env.readModels.close();
    await env.dataKeys.close();
    dir.cleanup();
  });

  const input = (external = 'emp-1') => ({
    external_subject_id: external,
    metadata: {},
    consent: { text_version: 'v1', granted_at: '2026-11-01T00:00:00Z', ui_hash: `sha256:${'0'.repeat(64)}` },
  });

  it('creates one subject when creates with the same external id truly interleave; the others get subject_exists', async () => {
    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => createSubject(env, input(), {}, new Date())));
    const created = outcomes.filter((o) => o.status === 'fulfilled');
    expect(created).toHaveLength(1);
    const winner = (created[0] as PromiseFulfilledResult<{ id: string }>).value.id;
    for (const o of outcomes.filter((o) => o.status === 'rejected')) {
      expect((o as PromiseRejectedResult).reason).toEqual(expect.any(DomainError));
      expect((o as PromiseRejectedResult).reason).toMatchObject({ code: 'subject_exists', details: { subject_id: winner } });
    }
    expect((await sqlite.readStream(externalIdStream('emp-1', await env.dataKeys.environmentSecret()))).events).toHaveLength(1);
  });

  it('completes a claim whose subject was never written (a crash between the two appends) under the claimed id', async () => {
    await sqlite.appendToStream(
      externalIdStream('emp-crash', await env.dataKeys.environmentSecret()),
      [{ id: randomUUID(), type: 'ExternalIdClaimed', data: { subject_id: 'sub_01M7ZZZZZZZZZZZZZZZZZZZZZZ' }, metadata: {} }],
      'no_stream',
    );
    const subject = await createSubject(env, input('emp-crash'), {}, new Date());
    expect(subject.id).toBe('sub_01M7ZZZZZZZZZZZZZZZZZZZZZZ');
    expect((await sqlite.readStream(subjectStream(subject.id))).events.map((e) => e.type)).toEqual(['SubjectCreated', 'ConsentRecorded']);
    await expect(createSubject(env, input('emp-crash'), {}, new Date())).rejects.toMatchObject({ code: 'subject_exists' });
  });
});
