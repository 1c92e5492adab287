import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { startAssessment, submitResponses } from '../../src/commands/assessments.js';
import { toNewEvents } from '../../src/commands/handle-command.js';
import { createSubject, eraseSubject } from '../../src/commands/subjects.js';
import { DomainError } from '../../src/domain/errors.js';
import type { DataKeyStore } from '../../src/ports/data-keys.js';
import type { EventStore } from '../../src/ports/event-store.js';
import type { CachedDataKeys } from '../../src/privacy/cached-data-keys.js';
import { EncryptingEventStore } from '../../src/privacy/encrypting-event-store.js';
import { OpenedStreamCache } from '../../src/privacy/opened-streams.js';
import { loadStoreConfig } from '../../src/settings/config.js';
import { openDataKeys } from '../../src/wiring/environments.js';
import { tempDir } from '../support/temp-dir.js';

const answers = (item: number) => ({
  type: 'ResponsesSubmitted',
  data: {
    assessment_id: 'asm_1',
    subject_id: 'sub_1',
    submitted_at: '2026-11-01T00:00:00.000Z',
    pii: { responses: [{ item_id: `mn_00${item}`, value: 3 }] },
  },
});

describe('streams kept opened between reads', () => {
  let dir: ReturnType<typeof tempDir>;
  let sqlite: SqliteEventStore;
  let dataKeys: CachedDataKeys;
  let clock: number;
  let cache: OpenedStreamCache;
  let log: EncryptingEventStore;
  beforeEach(async () => {
    dir = tempDir();
    sqlite = new SqliteEventStore(join(dir.path, 'e.db'), 'NORMAL');
    dataKeys = await openDataKeys(loadStoreConfig({ NATURE_DATA_DIR: dir.path, NATURE_SQLITE_SYNCHRONOUS: 'NORMAL' }), 'test');
    clock = 0;
    cache = new OpenedStreamCache({ maxEntries: 2, ttlMs: 1000 }, () => clock);
    dataKeys.onDestroy((subjectId) => cache.forgetSubject(subjectId));
    log = new EncryptingEventStore(sqlite, dataKeys, cache);
  });
  afterEach(async () => {
    await log.close();
    await dataKeys.close();
    dir.cleanup();
  });

  const uncachedRead = (name: string) => new EncryptingEventStore(sqlite, dataKeys).readStream(name);

  it('reads only what was appended since, by anyone, and answers what a whole read answers', async () => {
    await log.appendToStream('assessment-asm_1', toNewEvents([answers(1), answers(2)], {}), 'no_stream');
    await log.readStream('assessment-asm_1');
    // Another writer's append, straight to the log.
    await new EncryptingEventStore(sqlite, dataKeys).appendToStream('assessment-asm_1', toNewEvents([answers(3)], {}), 1n);
    const reads = vi.spyOn(sqlite, 'readStream');
    const read = await log.readStream('assessment-asm_1');
    expect(reads.mock.calls).toEqual([['assessment-asm_1', { fromRevision: 2n }]]);
    expect(read).toEqual(await uncachedRead('assessment-asm_1'));
    expect(read.events.map((event) => (event.data as { pii: unknown }).pii)).toEqual([1, 2, 3].map((item) => answers(item).data.pii));
  });

  it("drops a subject's streams when its key is destroyed: its answers read as erased at once", async () => {
    await log.appendToStream('assessment-asm_1', toNewEvents([answers(1)], {}), 'no_stream');
    await log.readStream('assessment-asm_1');
    await dataKeys.destroy('sub_1', '2026-11-02T00:00:00.000Z');
    // Gone from memory at once, not at the next read.
    expect(cache.get('assessment-asm_1')).toBeUndefined();
    const read = await log.readStream('assessment-asm_1');
    expect(read.events.map((event) => (event.data as { pii: unknown }).pii)).toEqual([null]);
  });

  it('reads a stream afresh when the log no longer holds the events kept (deleted and written anew outside the service)', async () => {
    const other = new SqliteEventStore(join(dir.path, 'other.db'), 'NORMAL');
    let current: EventStore = sqlite;
    const switching = new EncryptingEventStore(
      {
        appendToStream: (name, events, expected) => sqlite.appendToStream(name, events, expected),
        appendToStreams: (appends) => sqlite.appendToStreams(appends),
        readStream: (name, options) => current.readStream(name, options),
        readAll: (options) => sqlite.readAll(options),
        subscribeToAll: (options) => sqlite.subscribeToAll(options),
        ping: () => sqlite.ping(),
        close: async () => {},
      },
      dataKeys,
      cache,
    );
    await log.appendToStream('s', toNewEvents([answers(1), answers(2)], {}), 'no_stream');
    await switching.readStream('s');
    await new EncryptingEventStore(other, dataKeys).appendToStream('s', toNewEvents([answers(3)], {}), 'no_stream');
    current = other;
    const read = await switching.readStream('s');
    expect(read.revision).toBe(0n);
    expect(read.events.map((event) => (event.data as { pii: unknown }).pii)).toEqual([answers(3).data.pii]);
    await other.close();
  });

  it('reads a stream whole again once it is past its time, or pushed out by others read since', async () => {
    for (const name of ['a', 'b']) await log.appendToStream(name, toNewEvents([answers(1)], {}), 'no_stream');
    const reads = vi.spyOn(sqlite, 'readStream');
    await log.readStream('a');
    await log.readStream('b');
    await log.readStream('a');
    expect(reads.mock.calls.at(-1)).toEqual(['a', { fromRevision: 1n }]);
    await log.readStream('c');
    await log.readStream('b');
    expect(reads.mock.calls.at(-1)).toEqual(['b', undefined]);
    clock += 1000;
    await log.readStream('b');
    expect(reads.mock.calls.at(-1)).toEqual(['b', undefined]);
  });
});

describe('data keys served from the cache on writes', () => {
  let dir: ReturnType<typeof tempDir>;
  let sqlite: SqliteEventStore;
  /** Two replicas' keys over one store, each with its own cache. */
  let here: CachedDataKeys;
  let there: CachedDataKeys;
  beforeEach(async () => {
    dir = tempDir();
    sqlite = new SqliteEventStore(join(dir.path, 'e.db'), 'NORMAL');
    const config = loadStoreConfig({ NATURE_DATA_DIR: dir.path, NATURE_SQLITE_SYNCHRONOUS: 'NORMAL' });
    here = await openDataKeys(config, 'test');
    there = await openDataKeys(config, 'test');
  });
  afterEach(async () => {
    await sqlite.close();
    await here.close();
    await there.close();
    dir.cleanup();
  });

  const envOf = (dataKeys: DataKeyStore) => ({
    events: new EncryptingEventStore(sqlite, dataKeys, new OpenedStreamCache()),
    dataKeys,
    projector: { waitFor: async () => true },
    scoringVersion: 'mn76-v2',
  });
  const consent = { text_version: 'v1', granted_at: '2026-11-01T00:00:00Z', ui_hash: `sha256:${'0'.repeat(64)}` };

  it("refuses with 410 a batch taken after another replica erased the subject, though its cache still holds the subject's key", async () => {
    const env = envOf(here);
    const subject = await createSubject(env, { external_subject_id: 'emp-1', metadata: {}, consent }, {}, new Date());
    const { assessment } = await startAssessment(env, subject.id, { language: 'en', resultVisible: false }, {}, new Date());
    await submitResponses(env, subject.id, assessment.id, [{ item_id: 'mn_001', value: 3 }], {}, new Date());
    const store = vi.spyOn((here as unknown as { store: DataKeyStore }).store, 'keyFor');
    await submitResponses(env, subject.id, assessment.id, [{ item_id: 'mn_002', value: 3 }], {}, new Date());
    expect(store).not.toHaveBeenCalled();

    await eraseSubject(envOf(there), subject.id, {}, new Date());
    const refused = await submitResponses(env, subject.id, assessment.id, [{ item_id: 'mn_003', value: 3 }], {}, new Date()).catch(
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(DomainError);
    expect(refused).toMatchObject({ code: 'subject_erased' });
    expect((await sqlite.readAll({ limit: 100 })).filter((event) => event.type === 'ResponsesSubmitted')).toHaveLength(2);
  });

  it('asks the store for the key of an append no erasure fences off, and so refuses it once the key is gone', async () => {
    const log = new EncryptingEventStore(sqlite, here);
    await log.appendToStream('assessment-asm_1', toNewEvents([answers(1)], {}), 'no_stream');
    await there.destroy('sub_1', '2026-11-02T00:00:00.000Z');
    const rescored = { type: 'ProfileRescored', data: { subject_id: 'sub_1', pii: { profile: {} } } };
    await expect(log.appendToStream('assessment-asm_1', toNewEvents([rescored], {}), 0n)).rejects.toMatchObject({
      name: 'SubjectErasedError',
    });
  });
});
