import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteWrappedKeyStore } from '../../src/adapters/sqlite/data-key-store.js';
import type { DataKeyStore, WrappedKeyStore } from '../../src/ports/data-keys.js';
import {
  dataKeyLabel,
  generateMasterKey,
  MasterKeyError,
  MasterKeyRing,
  secretLabel,
  unwrapKey,
  wrapKey,
  wrappedBy,
} from '../../src/privacy/master-key.js';
import { MasterKeyFile } from '../../src/privacy/master-key-file.js';
import { rotateMasterKey } from '../../src/privacy/master-key-rotation.js';
import { firstWrapped, storedBlobs, WrappedDataKeys } from '../../src/privacy/wrapped-data-keys.js';
import { filesContaining } from '../support/byte-scan.js';
import { tempDir } from '../support/temp-dir.js';

let dir: ReturnType<typeof tempDir>;
let keyFile: string;
const opened: { close(): Promise<void> }[] = [];
beforeEach(() => {
  dir = tempDir();
  keyFile = join(dir.path, 'master.key');
});
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  dir.cleanup();
});

const storePath = (name: string) => join(dir.path, `${name}.data-keys.db`);
function blobStore(name: string): WrappedKeyStore {
  const store = new SqliteWrappedKeyStore(storePath(name), 'NORMAL');
  opened.push(store);
  return store;
}
/** The environment's data keys as a server opens them (the key file made if missing and nothing is wrapped). */
async function serverKeys(name: string, held: () => Promise<undefined> = async () => undefined): Promise<DataKeyStore> {
  return WrappedDataKeys.open(blobStore(name), await MasterKeyFile.open(keyFile, held));
}
async function allBlobs(store: WrappedKeyStore) {
  const all = [];
  for await (const page of storedBlobs(store)) all.push(...page);
  return all;
}
const digest = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');
const labelOf = (kind: string, name: string) => (kind === 'subject' ? dataKeyLabel(name) : secretLabel(name));

describe('rotating the master key', () => {
  it('re-wraps both stores while their servers keep serving; the old key then opens nothing', async () => {
    const sandbox = await serverKeys('sandbox');
    const production = await serverKeys('production');
    const oldKey = MasterKeyFile.read(keyFile)!.ring.current;
    const keys = new Map<string, Buffer>();
    for (let i = 0; i < 30; i += 1) keys.set(`sub_${i}`, await sandbox.keyFor(`sub_${i}`));
    const liveKey = await production.keyFor('sub_live');
    const secret = await sandbox.environmentSecret();

    const summary = await rotateMasterKey(MasterKeyFile.read(keyFile)!, [
      { name: 'test', store: blobStore('sandbox') },
      { name: 'live', store: blobStore('production') },
    ]);
    expect(summary).toEqual({
      from: oldKey.id,
      to: expect.stringMatching(/^[0-9a-f]{16}$/),
      resumed: false,
      rewrapped: { test: 31, live: 1 },
    });
    expect(summary.to).not.toBe(oldKey.id);
    const file = MasterKeyFile.read(keyFile)!;
    expect(file.ring.keys.map((key) => key.id)).toEqual([summary.to]);

    // The servers opened before the rotation, holding the old key only, read the new file and go on.
    for (const [subject, key] of keys) expect((await sandbox.keyFor(subject)).equals(key)).toBe(true);
    expect((await production.find('sub_live'))?.equals(liveKey)).toBe(true);
    expect((await sandbox.environmentSecret()).equals(secret)).toBe(true);
    await production.keyFor('sub_new');

    for (const name of ['sandbox', 'production']) {
      const store = blobStore(name);
      expect(await store.masterKeyId()).toBe(summary.to);
      for (const { kind, name: blobName, blob } of await allBlobs(store)) {
        expect(wrappedBy(blob)).toBe(summary.to);
        expect(() => unwrapKey(oldKey, blob, labelOf(kind, blobName))).toThrow();
        expect(unwrapKey(file.ring.current, blob, labelOf(kind, blobName))).toHaveLength(32);
      }
    }
  });

  it('finishes a rotation that a crash interrupted, without making another key', async () => {
    const sandbox = await serverKeys('sandbox');
    await serverKeys('production');
    const key = await sandbox.keyFor('sub_1');
    await sandbox.keyFor('sub_2');
    // As a run killed after writing both keys and recording the new one in one store left it.
    const file = MasterKeyFile.read(keyFile)!;
    const [next, old] = [generateMasterKey(), file.ring.current];
    file.replace(new MasterKeyRing([next, old]));
    await blobStore('sandbox').recordMasterKeyId(next.id);
    await sandbox.keyFor('sub_3');

    const summary = await rotateMasterKey(MasterKeyFile.read(keyFile)!, [
      { name: 'test', store: blobStore('sandbox') },
      { name: 'live', store: blobStore('production') },
    ]);
    expect(summary).toMatchObject({ from: old.id, to: next.id, resumed: true, rewrapped: { test: 2, live: 0 } });
    expect(MasterKeyFile.read(keyFile)!.ring.keys.map((each) => each.id)).toEqual([next.id]);
    expect((await sandbox.keyFor('sub_1')).equals(key)).toBe(true);
    for (const { blob } of await allBlobs(blobStore('sandbox'))) expect(wrappedBy(blob)).toBe(next.id);
  });

  it('refuses a key file that does not hold the key the stores record, changing nothing', async () => {
    const sandbox = await serverKeys('sandbox');
    await sandbox.keyFor('sub_1');
    await sandbox.close();
    opened.splice(0);
    const before = digest(storePath('sandbox'));
    writeFileSync(keyFile, new MasterKeyRing([generateMasterKey()]).toText());
    const text = readFileSync(keyFile, 'utf8');
    const store = blobStore('sandbox');
    await expect(rotateMasterKey(MasterKeyFile.read(keyFile)!, [{ name: 'test', store }])).rejects.toThrow(
      /^the data keys in .*sandbox\.data-keys\.db are wrapped by master key [0-9a-f]{16}, which NATURE_MASTER_KEY_FILE .* does not hold: nothing was changed$/,
    );
    expect(readFileSync(keyFile, 'utf8')).toBe(text);
    await store.close();
    opened.splice(0);
    expect(digest(storePath('sandbox'))).toBe(before);
  });

  it('runs one at a time: a lock held by a live process refuses, one left by a dead process is taken over', async () => {
    await serverKeys('sandbox');
    const stores = () => [{ name: 'test', store: blobStore('sandbox') }];
    writeFileSync(`${keyFile}.lock`, `${hostname()} ${process.pid}\n`);
    await expect(rotateMasterKey(MasterKeyFile.read(keyFile)!, stores())).rejects.toThrow(
      /^another master key rotation runs \(pid \d+ on .*\); if it is gone, remove that file and run this again$/,
    );
    expect(MasterKeyFile.read(keyFile)!.ring.keys).toHaveLength(1);
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' }).stdout;
    writeFileSync(`${keyFile}.lock`, `${hostname()} ${gone}\n`);
    await expect(rotateMasterKey(MasterKeyFile.read(keyFile)!, stores())).resolves.toMatchObject({ resumed: false });
  });
});

describe('opening data keys with the master key', () => {
  /** A data-keys file as the service wrote it before master keys: raw 32-byte keys and secret, some still in the WAL. */
  function legacyStore(name: string, subjects: number) {
    const db = new Database(storePath(name));
    db.pragma('journal_mode = WAL');
    db.exec(`CREATE TABLE data_keys (subject_id TEXT PRIMARY KEY, key BLOB, created_at TEXT NOT NULL, destroyed_at TEXT,
               CHECK ((key IS NULL) = (destroyed_at IS NOT NULL))) WITHOUT ROWID;
             CREATE TABLE secrets (name TEXT PRIMARY KEY, value BLOB NOT NULL) WITHOUT ROWID;`);
    const keys = new Map<string, Buffer>();
    const insert = db.prepare('INSERT INTO data_keys (subject_id, key, created_at) VALUES (?, ?, ?)');
    for (let i = 0; i < subjects; i += 1) {
      const key = randomBytes(32);
      keys.set(`sub_${String(i).padStart(5, '0')}`, key);
      insert.run(`sub_${String(i).padStart(5, '0')}`, key, new Date().toISOString());
    }
    db.prepare("INSERT INTO data_keys (subject_id, key, created_at, destroyed_at) VALUES ('sub_erased', NULL, 'x', 'y')").run();
    const secret = randomBytes(32);
    db.prepare("INSERT INTO secrets (name, value) VALUES ('environment', ?)").run(secret);
    return { db, keys, secret };
  }

  it('wraps a store from before master keys in place: the same keys, no raw byte of them left in any file', async () => {
    const legacy = legacyStore('sandbox', 2000);
    const raw = [...legacy.keys.values(), legacy.secret];
    expect(filesContaining(dir.path, raw.slice(0, 1))).not.toEqual([]);
    const keys = await serverKeys('sandbox');
    for (const [subject, key] of legacy.keys) expect((await keys.find(subject))?.equals(key)).toBe(true);
    expect((await keys.environmentSecret()).equals(legacy.secret)).toBe(true);
    expect(await keys.find('sub_erased')).toBeUndefined();
    // While the store stays open (WAL included), and after every connection closed.
    expect(filesContaining(dir.path, raw)).toEqual([]);
    legacy.db.close();
    await keys.close();
    opened.splice(0);
    expect(filesContaining(dir.path, raw)).toEqual([]);
    // A second start finds the store wrapped and changes nothing.
    const before = digest(storePath('sandbox'));
    await (await serverKeys('sandbox')).ping();
    expect(digest(storePath('sandbox'))).toBe(before);
  });

  it.each([50, 100])('finishes an upgrade that a crash interrupted after wrapping %i of 100 keys', async (done) => {
    const legacy = legacyStore('sandbox', 100);
    legacy.db.close();
    const master = (await MasterKeyFile.open(keyFile, async () => undefined)).ring.current;
    // Keys wrapped, nothing recorded: as a start killed in the middle of the upgrade (or before it recorded) left it.
    const wrapped = [...legacy.keys].slice(0, done);
    await blobStore('sandbox').rewrap(
      wrapped.map(([name, key]) => ({ kind: 'subject', name, from: key, to: wrapKey(master, key, dataKeyLabel(name)) })),
    );
    expect(await blobStore('sandbox').masterKeyId()).toBeUndefined();
    const keys = await serverKeys('sandbox');
    for (const [subject, key] of legacy.keys) expect((await keys.keyFor(subject)).equals(key)).toBe(true);
    expect(await blobStore('sandbox').masterKeyId()).toBe(master.id);
    expect(filesContaining(dir.path, [...legacy.keys.values()])).toEqual([]);
  });

  it('refuses to make a new key file when a store already holds wrapped keys, and makes none', async () => {
    const legacy = legacyStore('sandbox', 10);
    legacy.db.close();
    const master = generateMasterKey();
    const [name, key] = [...legacy.keys][0]!;
    await blobStore('sandbox').rewrap([{ kind: 'subject', name, from: key, to: wrapKey(master, key, dataKeyLabel(name)) }]);
    const store = blobStore('sandbox');
    await expect(MasterKeyFile.open(keyFile, () => firstWrapped(store))).rejects.toThrow(
      new RegExp(
        `^NATURE_MASTER_KEY_FILE .*master\\.key is missing; the data keys in .*sandbox\\.data-keys\\.db are wrapped by master key ${master.id}:`,
      ),
    );
    expect(MasterKeyFile.read(keyFile)).toBeUndefined();
  });

  it('refuses a key file that does not hold the key the store records, with nothing written', async () => {
    const keys = await serverKeys('sandbox');
    await keys.keyFor('sub_1');
    const recorded = MasterKeyFile.read(keyFile)!.ring.current.id;
    await keys.close();
    opened.splice(0);
    const before = digest(storePath('sandbox'));
    const wrong = new MasterKeyRing([generateMasterKey()]);
    writeFileSync(keyFile, wrong.toText());
    const refusal = serverKeys('sandbox');
    await expect(refusal).rejects.toBeInstanceOf(MasterKeyError);
    await expect(refusal).rejects.toThrow(
      `NATURE_MASTER_KEY_FILE ${keyFile} holds master key ${wrong.current.id}, but the data keys in ${storePath('sandbox')} are wrapped by master key ${recorded}: give the file that holds that key`,
    );
    for (const store of opened.splice(0)) await store.close();
    expect(digest(storePath('sandbox'))).toBe(before);
  });

  it('takes another key file for a store that holds nothing wrapped yet', async () => {
    await (await serverKeys('sandbox')).ping();
    writeFileSync(keyFile, new MasterKeyRing([generateMasterKey()]).toText());
    const keys = await serverKeys('sandbox');
    await keys.keyFor('sub_1');
    expect(await blobStore('sandbox').masterKeyId()).toBe(MasterKeyFile.read(keyFile)!.ring.current.id);
  });
});
