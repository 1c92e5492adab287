import { copyFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DataTooOldError } from '../../src/adapters/data-versions.js';
import { SqliteAccountStore } from '../../src/adapters/sqlite/account-store.js';
import { SqliteBus } from '../../src/adapters/sqlite/bus.js';
import { SqliteWrappedKeyStore } from '../../src/adapters/sqlite/data-key-store.js';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { SqliteIdempotencyStore } from '../../src/adapters/sqlite/idempotency-store.js';
import { SqliteKeyStore } from '../../src/adapters/sqlite/key-store.js';
import { readModelSteps, SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import { hashKey } from '../../src/domain/api-keys.js';
import { readModelLayout } from '../../src/wiring/environments.js';
import { filesContaining } from '../support/byte-scan.js';
import { tempDir } from '../support/temp-dir.js';

/** The data directories older versions wrote (their READMEs say what is in them). */
const v0 = new URL('../fixtures/data-v0/', import.meta.url).pathname;
const v1 = new URL('../fixtures/data-v1/', import.meta.url).pathname;
const { indexedFields, rebuilds } = readModelLayout;

const versionOf = (path: string) => {
  const db = new Database(path, { readonly: true });
  try {
    return db.pragma('user_version', { simple: true }) as number;
  } finally {
    db.close();
  }
};

const query = <T>(path: string, sql: string): T[] => {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare<[], T>(sql).all();
  } finally {
    db.close();
  }
};

/** A read-model file at `version`, made by this version's own steps up to it (the previous version's file). */
function readModelsAt(path: string, version: number, fill: (db: Database.Database) => void): void {
  const db = new Database(path);
  for (const step of readModelSteps(rebuilds).slice(0, version)) step.run(db);
  db.pragma(`user_version = ${version}`);
  fill(db);
  db.close();
}

const checkpoints = (path: string) =>
  query<{ projection: string }>(path, 'SELECT projection FROM projection_checkpoints ORDER BY projection').map(
    ({ projection }) => projection,
  );

describe('each SQLite store, opened on a file the version before its last step wrote', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());
  const copy = (from: string, name: string) => {
    const path = join(dir.path, name);
    copyFileSync(join(from, name), path);
    return path;
  };

  describe('read models', () => {
    it('of data-v1 (plain text) lose every projection’s documents and checkpoints, the reactors’ kept: steps 1 to 4', async () => {
      const path = copy(v1, 'sandbox.read.db');
      expect(filesContaining(dir.path, ['V1-MARKER-ALPHA'])).not.toEqual([]);
      const store = new SqliteReadModelStore(path, 'NORMAL', indexedFields, { rebuilds });
      expect(await store.get('subjects', 'sub_01M869VC3QFPZTGV4HVQVD9KM6')).toBeUndefined();
      await store.close();
      expect(versionOf(path)).toBe(4);
      expect(checkpoints(path)).toEqual(['erasure', 'publisher', 'rescoring']);
      expect(query(path, 'SELECT * FROM documents')).toEqual([]);
      // Zeroed in place and out of the WAL: no plaintext is left in any file.
      expect(filesContaining(dir.path, ['V1-MARKER-ALPHA', 'V1-COHORT-BETA'])).toEqual([]);
    });

    it('at step 1 gain the usage counters (step 2)', async () => {
      const path = join(dir.path, 'read.db');
      readModelsAt(path, 1, () => {});
      await new SqliteReadModelStore(path, 'NORMAL', indexedFields, { rebuilds }).close();
      expect(query<{ n: number }>(path, 'SELECT count(*) AS n FROM counters')).toEqual([{ n: 0 }]);
    });

    it('at step 3 lose the usage kept in bucket documents, the rest kept (step 4)', async () => {
      const path = join(dir.path, 'read.db');
      readModelsAt(path, 3, (db) => {
        const put = db.prepare("INSERT INTO documents (collection, id, doc, position) VALUES (?, ?, ?, '1')");
        put.run('usage', '2026-11-24T09:13', '{"tallies":[]}');
        put.run('subjects', 'sub_1', '{"id":"sub_1"}');
        db.prepare("INSERT INTO projection_checkpoints VALUES ('usage', '9'), ('subjects', '9'), ('scoring', '9')").run();
      });
      await new SqliteReadModelStore(path, 'NORMAL', indexedFields, { rebuilds }).close();
      expect(query<{ collection: string }>(path, 'SELECT collection FROM documents')).toEqual([{ collection: 'subjects' }]);
      expect(checkpoints(path)).toEqual(['scoring', 'subjects']);
    });

    it('of the version before numbered steps, marked sealed and counted, keep everything and lose the marks', async () => {
      const path = join(dir.path, 'read.db');
      readModelsAt(path, 2, (db) => {
        db.pragma('user_version = 0');
        db.prepare("INSERT INTO documents (collection, id, doc, position) VALUES ('subjects', 'sub_1', '{}', '1')").run();
        db.prepare(
          "INSERT INTO projection_checkpoints VALUES ('subjects', '9'), ('format:sealed-personal-data', '1'), ('format:usage-counters', '1')",
        ).run();
      });
      await new SqliteReadModelStore(path, 'NORMAL', indexedFields, { rebuilds }).close();
      expect(versionOf(path)).toBe(4);
      expect(query(path, 'SELECT id FROM documents')).toEqual([{ id: 'sub_1' }]);
      expect(checkpoints(path)).toEqual(['subjects']);
    });

    it('of data-v0 (without positions) are refused, untouched', () => {
      const path = copy(v0, 'sandbox.read.db');
      const before = readFileSync(path);
      expect(() => new SqliteReadModelStore(path, 'NORMAL', indexedFields, { rebuilds })).toThrow(DataTooOldError);
      expect(readFileSync(path).equals(before)).toBe(true);
    });
  });

  describe('keys.db', () => {
    it("of data-v1 keeps its keys and gains the account tables (step 2), the keys' last use (step 3), invitations (step 4), the plan (step 5) and two-factor sign-in's tables (step 6)", async () => {
      const path = copy(v1, 'keys.db');
      const keys = new SqliteKeyStore(path, 'FULL');
      expect(await keys.findByHash(hashKey('test_sk_yYTUOTsGCxvPgk6DQGUyzZYgoWpsvSoS9STv0c5n'))).toMatchObject({
        type: 'sk',
        origins: [],
        last_used_at: null,
      });
      await keys.close();
      const accounts = new SqliteAccountStore(path, 'FULL');
      await accounts.close();
      expect(versionOf(path)).toBe(6);
      expect(query(path, "SELECT name FROM sqlite_master WHERE name IN ('users', 'invitations') ORDER BY name")).toEqual([
        { name: 'invitations' },
        { name: 'users' },
      ]);
      expect(query(path, "SELECT name FROM sqlite_master WHERE name = 'plans'")).toEqual([{ name: 'plans' }]);
      expect(query(path, "SELECT name FROM sqlite_master WHERE name = 'two_factor'")).toEqual([{ name: 'two_factor' }]);
    });

    it('of data-v0 (API keys without allowed origins) is refused', () => {
      const path = copy(v0, 'keys.db');
      expect(() => new SqliteKeyStore(path, 'FULL')).toThrow(DataTooOldError);
      expect(versionOf(path)).toBe(0);
    });
  });

  describe('idempotency.db', () => {
    it('of data-v1 keeps its answers (step 1)', async () => {
      const path = copy(v1, 'sandbox.idempotency.db');
      const before = query(path, 'SELECT * FROM idempotency_keys');
      expect(before).not.toEqual([]);
      await new SqliteIdempotencyStore(path, 'NORMAL').close();
      expect(versionOf(path)).toBe(1);
      expect(query(path, 'SELECT * FROM idempotency_keys')).toEqual(before);
    });

    it('from before holders were kept is refused', () => {
      const path = join(dir.path, 'idempotency.db');
      const db = new Database(path);
      db.exec(
        'CREATE TABLE idempotency_keys (key TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, response TEXT, locked_until INTEGER NOT NULL, expires_at INTEGER NOT NULL) WITHOUT ROWID',
      );
      db.close();
      expect(() => new SqliteIdempotencyStore(path, 'NORMAL')).toThrow(DataTooOldError);
    });
  });

  it('data-keys.db of data-v1 keeps its raw keys, for the master key to wrap, and gains its record (step 2)', async () => {
    const path = copy(v1, 'sandbox.data-keys.db');
    const before = query(path, 'SELECT * FROM data_keys');
    await new SqliteWrappedKeyStore(path, 'FULL').close();
    expect(versionOf(path)).toBe(2);
    expect(query(path, 'SELECT * FROM data_keys')).toEqual(before);
    expect(query(path, 'SELECT * FROM master_key')).toEqual([]);
  });

  describe('events.db', () => {
    it('of data-v1 (sealed, at 1) is read as it is', async () => {
      const path = copy(v1, 'sandbox.events.db');
      const store = new SqliteEventStore(path, 'FULL');
      expect((await store.readAll({ limit: 100 })).length).toBeGreaterThan(10);
      await store.close();
      expect(versionOf(path)).toBe(1);
    });

    it('of data-v0 (personal fields in plain text) is refused, untouched, by the log and the bus alike', () => {
      const path = copy(v0, 'sandbox.events.db');
      const before = readFileSync(path);
      expect(() => new SqliteEventStore(path, 'FULL')).toThrow(DataTooOldError);
      expect(() => new SqliteBus(path, 'NORMAL')).toThrow(DataTooOldError);
      expect(readFileSync(path).equals(before)).toBe(true);
    });

    it('made new by the bus holds the log too (step 1)', async () => {
      const path = join(dir.path, 'events.db');
      await new SqliteBus(path, 'NORMAL').close();
      expect(versionOf(path)).toBe(1);
      const store = new SqliteEventStore(path, 'FULL');
      expect(await store.readAll({ limit: 1 })).toEqual([]);
      await store.close();
    });
  });
});
