import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { type DataKeyStore, SubjectErasedError } from '../../src/ports/data-keys.js';
import type { NewEvent, RecordedEvent } from '../../src/ports/event-store.js';
import { CachedDataKeys } from '../../src/privacy/cached-data-keys.js';
import { EncryptingEventStore } from '../../src/privacy/encrypting-event-store.js';
import { isEnvelope, open, type PiiEnvelope, seal } from '../../src/privacy/pii-envelope.js';
import { loadStoreConfig } from '../../src/settings/config.js';
import { openDataKeys } from '../../src/wiring/environments.js';
import { filesContaining } from '../support/byte-scan.js';
import { tempDir } from '../support/temp-dir.js';

describe('pii envelope', () => {
  const key = randomBytes(32);
  const eventId = randomUUID();

  it('opens what it sealed, for any JSON value', () => {
    for (const pii of [{ external_subject_id: 'emp-1', metadata: { cohort: 'a', n: [1, 2] } }, 'text', 42, true, [], null]) {
      const envelope = seal(key, pii, 'sub_1', eventId);
      expect(envelope.alg).toBe('A256GCM');
      expect(Buffer.from(envelope.iv, 'base64')).toHaveLength(12);
      // Ciphertext as long as the JSON, then the 16-byte tag.
      expect(Buffer.from(envelope.ct, 'base64')).toHaveLength(Buffer.byteLength(JSON.stringify(pii)) + 16);
      expect(open(key, envelope, 'sub_1', eventId)).toEqual(pii);
    }
  });

  it('draws a fresh nonce each time: the same value sealed twice differs', () => {
    const pii = { external_subject_id: 'emp-1' };
    const a = seal(key, pii, 'sub_1', eventId);
    const b = seal(key, pii, 'sub_1', eventId);
    expect(a.iv).not.toBe(b.iv);
    expect(a.ct).not.toBe(b.ct);
    expect(open(key, a, 'sub_1', eventId)).toEqual(open(key, b, 'sub_1', eventId));
  });

  it('does not open for another subject, another event, another key, or an altered ciphertext, nonce or tag', () => {
    const envelope = seal(key, { external_subject_id: 'emp-1' }, 'sub_1', eventId);
    expect(() => open(key, envelope, 'sub_2', eventId)).toThrow();
    expect(() => open(key, envelope, 'sub_1', randomUUID())).toThrow();
    expect(() => open(randomBytes(32), envelope, 'sub_1', eventId)).toThrow();
    const bytes = Buffer.from(envelope.ct, 'base64');
    const flipped = (at: number): PiiEnvelope => {
      const copy = Buffer.from(bytes);
      copy[at] = copy[at]! ^ 0x01;
      return { ...envelope, ct: copy.toString('base64') };
    };
    expect(() => open(key, flipped(0), 'sub_1', eventId)).toThrow();
    expect(() => open(key, flipped(bytes.length - 1), 'sub_1', eventId)).toThrow();
    const iv = Buffer.from(envelope.iv, 'base64');
    iv[0] = iv[0]! ^ 0x01;
    expect(() => open(key, { ...envelope, iv: iv.toString('base64') }, 'sub_1', eventId)).toThrow();
    // The untouched envelope still opens.
    expect(open(key, envelope, 'sub_1', eventId)).toEqual({ external_subject_id: 'emp-1' });
  });

  it('tells an envelope from plain personal data', () => {
    expect(isEnvelope(seal(key, { a: 1 }, 'sub_1', eventId))).toBe(true);
    expect(isEnvelope(JSON.parse(JSON.stringify(seal(key, { a: 1 }, 'sub_1', eventId))))).toBe(true);
    for (const value of [
      null,
      undefined,
      'A256GCM',
      1,
      {},
      { alg: 'A256GCM' },
      { alg: 'A128GCM', iv: 'x', ct: 'y' },
      { alg: 'A256GCM', ct: 1 },
      { external_subject_id: 'emp-1' },
    ]) {
      expect(isEnvelope(value)).toBe(false);
    }
  });
});

describe('EncryptingEventStore over SQLite', () => {
  let dir: ReturnType<typeof tempDir>;
  let raw: SqliteEventStore;
  let keyStore: DataKeyStore;
  let dataKeys: CachedDataKeys;
  let store: EncryptingEventStore;

  beforeEach(async () => {
    dir = tempDir();
    raw = new SqliteEventStore(join(dir.path, 'events.db'), 'NORMAL', { pollIntervalMs: 50 });
    keyStore = (await openDataKeys(loadStoreConfig({ NATURE_DATA_DIR: dir.path, NATURE_SQLITE_SYNCHRONOUS: 'NORMAL' }), 'test')).uncached;
    dataKeys = new CachedDataKeys(keyStore);
    store = new EncryptingEventStore(raw, dataKeys);
  });
  afterEach(async () => {
    await store.close();
    await dataKeys.close();
    dir.cleanup();
  });

  const erasedAt = '2025-01-02T03:04:05.000Z';
  const created = (subjectId: string, externalId: string): NewEvent => ({
    id: randomUUID(),
    type: 'SubjectCreated',
    data: {
      subject_id: subjectId,
      created_at: '2025-01-01T00:00:00.000Z',
      pii: { external_subject_id: externalId, metadata: { full_name: `Name of ${externalId}` } },
    },
    metadata: { request_id: 'req_1' },
  });
  const plainData = (events: RecordedEvent[]) => events.map((event) => event.data);

  it('stores pii sealed with the subject key, bound to the event, and nothing of it in plaintext', async () => {
    const event = created('sub_1', 'emp-secret-4711');
    await store.appendToStream('subject-sub_1', [event], 'no_stream');
    const [stored] = (await raw.readStream('subject-sub_1')).events;
    const data = stored!.data as { subject_id: string; created_at: string; pii: unknown };
    expect(stored!.id).toBe(event.id);
    expect(data.subject_id).toBe('sub_1');
    expect(data.created_at).toBe('2025-01-01T00:00:00.000Z');
    expect(isEnvelope(data.pii)).toBe(true);
    expect(JSON.stringify(stored!.data)).not.toContain('emp-secret-4711');
    expect(JSON.stringify(stored!.data)).not.toContain('Name of');
    expect(stored!.metadata).toEqual({ request_id: 'req_1' });
    const key = await keyStore.find('sub_1');
    expect(open(key!, data.pii as PiiEnvelope, 'sub_1', event.id)).toEqual((event.data as { pii: unknown }).pii);
    // Not in any file either: the log, its WAL, the key store.
    expect(filesContaining(dir.path, ['emp-secret-4711', 'Name of emp-secret'])).toEqual([]);
  });

  it('reads pii back in plaintext through readStream, readAll and subscribeToAll', async () => {
    const first = created('sub_1', 'emp-1');
    const second = created('sub_2', 'emp-2');
    await store.appendToStream('subject-sub_1', [first], 'no_stream');
    await store.appendToStream('subject-sub_2', [second], 'no_stream');
    const read = await store.readStream('subject-sub_1');
    expect(read.revision).toBe(0n);
    expect(plainData(read.events)).toEqual([first.data]);
    expect(read.events[0]).toMatchObject({ id: first.id, type: 'SubjectCreated', streamName: 'subject-sub_1', metadata: first.metadata });
    expect(plainData(await store.readAll({ limit: 10 }))).toEqual([first.data, second.data]);

    const controller = new AbortController();
    const seen: RecordedEvent[] = [];
    const subscribed = (async () => {
      for await (const event of store.subscribeToAll({ signal: controller.signal })) {
        seen.push(event);
        if (seen.length === 3) controller.abort();
      }
    })();
    const third = created('sub_3', 'emp-3');
    await store.appendToStream('subject-sub_3', [third], 'no_stream');
    await subscribed;
    expect(plainData(seen)).toEqual([first.data, second.data, third.data]);
  });

  it('passes events without pii, or with pii null, through unchanged', async () => {
    const events: NewEvent[] = [
      { id: randomUUID(), type: 'NoPii', data: { subject_id: 'sub_1', n: 1 }, metadata: {} },
      { id: randomUUID(), type: 'PiiNull', data: { subject_id: 'sub_1', pii: null }, metadata: {} },
      { id: randomUUID(), type: 'NoSubject', data: { anything: 'else' }, metadata: {} },
    ];
    await store.appendToStream('s-1', events, 'no_stream');
    const expected = events.map((event) => event.data);
    expect(plainData((await raw.readStream('s-1')).events)).toEqual(expected);
    expect(plainData((await store.readStream('s-1')).events)).toEqual(expected);
    // No key is made for a subject without personal data.
    expect(await keyStore.find('sub_1')).toBeUndefined();
  });

  it("reads an erased subject's pii as null, keeps others readable, and refuses new pii for it", async () => {
    const erased = created('sub_1', 'emp-1');
    const other = created('sub_2', 'emp-2');
    await store.appendToStream('subject-sub_1', [erased], 'no_stream');
    await store.appendToStream('subject-sub_2', [other], 'no_stream');
    // Read once, so the cache holds the key before it is destroyed.
    expect(plainData((await store.readStream('subject-sub_1')).events)).toEqual([erased.data]);

    await dataKeys.destroy('sub_1', erasedAt);

    expect(plainData((await store.readStream('subject-sub_1')).events)).toEqual([{ ...(erased.data as object), pii: null }]);
    expect(plainData(await store.readAll({ limit: 10 }))).toEqual([{ ...(erased.data as object), pii: null }, other.data]);
    const before = await raw.readAll({ limit: 100 });

    const again = created('sub_1', 'emp-1-again');
    const error = await store.appendToStream('subject-sub_1', [again], 0n).then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(SubjectErasedError);
    expect((error as SubjectErasedError).subjectId).toBe('sub_1');
    // A batch with one event for the erased subject appends none of it.
    await expect(
      store.appendToStream('mixed', [created('sub_3', 'emp-3'), created('sub_1', 'emp-1-b')], 'no_stream'),
    ).rejects.toBeInstanceOf(SubjectErasedError);
    expect(await raw.readAll({ limit: 100 })).toEqual(before);
    // An event without pii for the erased subject is still accepted (erasure itself, consent records).
    await store.appendToStream(
      'subject-sub_1',
      [{ id: randomUUID(), type: 'SubjectErased', data: { subject_id: 'sub_1', pii: null }, metadata: {} }],
      0n,
    );
    expect((await raw.readStream('subject-sub_1')).revision).toBe(1n);
  });

  it('refuses pii without a subject_id, and appends nothing', async () => {
    const orphan: NewEvent = { id: randomUUID(), type: 'Orphan', data: { pii: { name: 'nobody' } }, metadata: {} };
    await expect(store.appendToStream('s-1', [orphan], 'no_stream')).rejects.toThrow(/Orphan carries pii without a subject_id/);
    const numeric: NewEvent = { id: randomUUID(), type: 'Numeric', data: { subject_id: 7, pii: { name: 'nobody' } }, metadata: {} };
    await expect(store.appendToStream('s-1', [numeric], 'no_stream')).rejects.toThrow(/without a subject_id/);
    expect(await raw.readAll({ limit: 10 })).toEqual([]);
  });
});

/**
 * keyFor as a promise even when the call throws before returning one: a DataKeyStore's keyFor (and so
 * CachedDataKeys.keyFor) throws SubjectErasedError synchronously instead of rejecting.
 */
function keyFor(keys: DataKeyStore, subjectId: string): Promise<Buffer> {
  return Promise.resolve().then(() => keys.keyFor(subjectId));
}

describe('CachedDataKeys', () => {
  let dir: ReturnType<typeof tempDir>;
  let keyStore: DataKeyStore;
  let cached: CachedDataKeys;
  beforeEach(async () => {
    dir = tempDir();
    keyStore = (await openDataKeys(loadStoreConfig({ NATURE_DATA_DIR: dir.path, NATURE_SQLITE_SYNCHRONOUS: 'NORMAL' }), 'test')).uncached;
    cached = new CachedDataKeys(keyStore);
  });
  afterEach(async () => {
    vi.useRealTimers();
    await cached.close();
    dir.cleanup();
  });

  it('forgets a key destroyed through it at once', async () => {
    const key = await cached.keyFor('sub_1');
    expect((await cached.find('sub_1'))?.equals(key)).toBe(true);
    await cached.destroy('sub_1', '2025-01-02T03:04:05.000Z');
    expect(await cached.find('sub_1')).toBeUndefined();
    expect(await keyStore.find('sub_1')).toBeUndefined();
    await expect(keyFor(cached, 'sub_1')).rejects.toBeInstanceOf(SubjectErasedError);
  });

  it('serves a key destroyed elsewhere for at most ten seconds, and refuses keyFor at once', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    const key = await cached.keyFor('sub_1');
    expect((await cached.find('sub_1'))?.equals(key)).toBe(true);
    await keyStore.destroy('sub_1', '2025-01-02T03:04:05.000Z');
    await expect(keyFor(cached, 'sub_1')).rejects.toBeInstanceOf(SubjectErasedError);
    expect((await cached.find('sub_1'))?.equals(key)).toBe(true);
    vi.advanceTimersByTime(10_001);
    expect(await cached.find('sub_1')).toBeUndefined();
  });

  it('asks the store once per subject while the entry is fresh; a key it made itself not at all', async () => {
    const made = await cached.keyFor('sub_1');
    const other = await keyStore.keyFor('sub_2');
    const find = vi.spyOn(keyStore, 'find');
    for (let i = 0; i < 5; i += 1) expect((await cached.find('sub_1'))?.equals(made)).toBe(true);
    expect(find).toHaveBeenCalledTimes(0);
    for (let i = 0; i < 5; i += 1) expect((await cached.find('sub_2'))?.equals(other)).toBe(true);
    expect(find).toHaveBeenCalledTimes(1);
  });
});
