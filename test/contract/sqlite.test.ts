import { randomBytes, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { SqliteAccountStore } from '../../src/adapters/sqlite/account-store.js';
import { SqliteWrappedKeyStore } from '../../src/adapters/sqlite/data-key-store.js';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { SqliteIdempotencyStore } from '../../src/adapters/sqlite/idempotency-store.js';
import { SqliteKeyStore } from '../../src/adapters/sqlite/key-store.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import { ACCOUNT_ID } from '../../src/domain/accounts.js';
import { filesContaining } from '../support/byte-scan.js';
import { tempDir } from '../support/temp-dir.js';
import { accountPlanContract } from './account-plan.contract.js';
import { accountStoreContract } from './account-store.contract.js';
import { dataKeyStoreContract, wrappedDataKeys, wrappedKeyStoreContract } from './data-key-store.contract.js';
import { eventStoreContract } from './event-store.contract.js';
import { idempotencyStoreContract } from './idempotency-store.contract.js';
import { keyStoreContract } from './key-store.contract.js';
import { readModelStoreContract } from './read-model-store.contract.js';
import { twoFactorStoreContract } from './two-factor-store.contract.js';

eventStoreContract('sqlite', async () => {
  const dir = tempDir();
  const store = new SqliteEventStore(join(dir.path, 'events.db'), 'FULL', { pollIntervalMs: 50 });
  return {
    store,
    cleanup: async () => {
      await store.close();
      dir.cleanup();
    },
  };
});

readModelStoreContract('sqlite', async () => {
  const dir = tempDir();
  const store = new SqliteReadModelStore(join(dir.path, 'read.db'), 'NORMAL', [{ collection: 'things', field: 'tag' }]);
  return {
    store,
    cleanup: async () => {
      await store.close();
      dir.cleanup();
    },
  };
});

/** A store on a file of a fresh directory, which a test may close and open again on the same file. */
async function reopenable<Store extends { close(): Promise<void> }>(file: string, open: (path: string) => Store | Promise<Store>) {
  const dir = tempDir();
  const path = join(dir.path, file);
  const fixture = {
    path,
    store: await open(path),
    reopen: async () => {
      await fixture.store.close();
      fixture.store = await open(path);
    },
    cleanup: async () => {
      await fixture.store.close();
      dir.cleanup();
    },
  };
  return fixture;
}

dataKeyStoreContract('sqlite, wrapped by a master key', () =>
  reopenable('keys.db', (path) => wrappedDataKeys(new SqliteWrappedKeyStore(path, 'FULL'), join(dirname(path), 'master.key'))),
);
wrappedKeyStoreContract('sqlite', () => reopenable('keys.db', (path) => new SqliteWrappedKeyStore(path, 'FULL')));
idempotencyStoreContract('sqlite', () => reopenable('idempotency.db', (path) => new SqliteIdempotencyStore(path, 'FULL')));
keyStoreContract('sqlite', async () => {
  const fixture = await reopenable('keys.db', (path) => new SqliteKeyStore(path, 'FULL'));
  return {
    ...fixture,
    get store() {
      return fixture.store;
    },
    // The account store reads keys.db through a connection of its own, as the server's does.
    async activity() {
      const accounts = new SqliteAccountStore(fixture.path, 'FULL');
      try {
        return await accounts.activity(ACCOUNT_ID, 100);
      } finally {
        await accounts.close();
      }
    },
  };
});
accountStoreContract('sqlite', () => reopenable('keys.db', (path) => new SqliteAccountStore(path, 'FULL')));
accountPlanContract('sqlite', () => reopenable('keys.db', (path) => new SqliteAccountStore(path, 'FULL')));
twoFactorStoreContract('sqlite', () => reopenable('keys.db', (path) => new SqliteAccountStore(path, 'FULL')));

describe('sqlite data key store on disk', () => {
  /** Keys made and checkpointed into the database file (a close does that), then one destroyed by a new store. */
  async function destroyAfterReopen(dir: string) {
    const path = join(dir, 'keys.db');
    const keyFile = join(dir, 'master.key');
    const first = await wrappedDataKeys(new SqliteWrappedKeyStore(path, 'FULL'), keyFile);
    const key = await first.keyFor('sub_erased');
    await first.keyFor('sub_kept');
    for (let i = 0; i < 50; i += 1) await first.keyFor(`sub_${i}`);
    await first.close();
    const blobs = new SqliteWrappedKeyStore(path, 'FULL');
    const destroyed = (await blobs.find('sub_erased'))!;
    const kept = (await blobs.find('sub_kept'))!;
    const store = await wrappedDataKeys(blobs, keyFile);
    expect(filesContaining(dir, [destroyed])).not.toEqual([]);
    await store.destroy('sub_erased', new Date().toISOString());
    return { store, blobs, key, destroyed, kept };
  }

  it('makes the keys asked for in one turn together, each its own, all kept; a close makes those still queued', async () => {
    const dir = tempDir();
    const path = join(dir.path, 'keys.db');
    const store = new SqliteWrappedKeyStore(path, 'FULL');
    await store.recordMasterKeyId('mk_1');
    const fresh = () => randomBytes(40);
    const first = await Promise.all(Array.from({ length: 30 }, (_, i) => store.keyFor(`sub_${i}`, fresh)));
    expect(new Set(first.map((key) => key.toString('hex'))).size).toBe(30);
    const queued = Array.from({ length: 5 }, (_, i) => store.keyFor(`sub_late_${i}`, fresh));
    await store.close();
    const late = await Promise.all(queued);
    const reopened = new SqliteWrappedKeyStore(path, 'FULL');
    for (const [i, key] of first.entries()) expect(await reopened.find(`sub_${i}`)).toEqual(key);
    for (const [i, key] of late.entries()) expect(await reopened.find(`sub_late_${i}`)).toEqual(key);
    await reopened.close();
    dir.cleanup();
  });

  it('leaves no byte of a destroyed key in any file of its directory once closed, and never a data key unwrapped', async () => {
    const dir = tempDir();
    const { store, key, destroyed, kept } = await destroyAfterReopen(dir.path);
    await store.close();
    const files = readdirSync(dir.path);
    expect(files).toContain('keys.db');
    const contents = files.map((name) => readFileSync(join(dir.path, name)));
    expect(contents.some((bytes) => bytes.includes(destroyed))).toBe(false);
    expect(contents.some((bytes) => bytes.includes(key))).toBe(false);
    // The scan would have seen a key: the one still in use is there, wrapped.
    expect(contents.some((bytes) => bytes.includes(kept))).toBe(true);
    dir.cleanup();
  });

  it('leaves no byte of a destroyed key in the database or its WAL while the store stays open', async () => {
    const dir = tempDir();
    const { store, blobs, destroyed, kept } = await destroyAfterReopen(dir.path);
    expect(filesContaining(dir.path, [destroyed])).toEqual([]);
    expect(filesContaining(dir.path, [kept])).not.toEqual([]);
    // A key made and destroyed while open (its page only ever in the WAL) leaves nothing either.
    const brief = await store.keyFor('sub_brief');
    const briefBlob = (await blobs.find('sub_brief'))!;
    await store.destroy('sub_brief', new Date().toISOString());
    expect(filesContaining(dir.path, [brief, briefBlob, destroyed])).toEqual([]);
    await store.close();
    dir.cleanup();
  });
});

describe('sqlite event store on disk', () => {
  it('refuses to update or delete an event, even through SQL', async () => {
    const dir = tempDir();
    const path = join(dir.path, 'events.db');
    const store = new SqliteEventStore(path, 'FULL');
    await store.appendToStream('s-1', [{ id: randomUUID(), type: 'A', data: {}, metadata: {} }], 'no_stream');
    const raw = new Database(path);
    expect(() => raw.prepare("UPDATE events SET type = 'B'").run()).toThrow(/append-only/);
    expect(() => raw.prepare('DELETE FROM events').run()).toThrow(/append-only/);
    raw.close();
    await store.close();
    dir.cleanup();
  });

  it('keeps events across a reopen and continues revisions and positions', async () => {
    const dir = tempDir();
    const path = join(dir.path, 'events.db');
    const first = new SqliteEventStore(path, 'FULL');
    const appended = await first.appendToStream('s-1', [{ id: randomUUID(), type: 'A', data: { a: 1 }, metadata: {} }], 'no_stream');
    await first.close();
    const second = new SqliteEventStore(path, 'FULL');
    expect((await second.readStream('s-1')).events.map((e) => e.data)).toEqual([{ a: 1 }]);
    const next = await second.appendToStream('s-1', [{ id: randomUUID(), type: 'B', data: {}, metadata: {} }], 0n);
    expect(next.position).toBeGreaterThan(appended.position);
    await second.close();
    dir.cleanup();
  });

  it('runs in WAL mode with synchronous=FULL by default, so a 2xx means the event is on disk', async () => {
    const dir = tempDir();
    const path = join(dir.path, 'events.db');
    const store = new SqliteEventStore(path, 'FULL');
    const probe = new Database(path);
    expect(probe.pragma('journal_mode', { simple: true })).toBe('wal');
    probe.close();
    // synchronous is per connection: read it through the store's own connection.
    const connection = (store as unknown as { db: Database.Database }).db;
    expect(connection.pragma('synchronous', { simple: true })).toBe(2);
    await store.close();
    dir.cleanup();
  });
});
