import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteKeyStore } from '../../src/adapters/sqlite/key-store.js';
import { hashKey } from '../../src/domain/api-keys.js';
import { tempDir } from '../support/temp-dir.js';

describe('keys.db made before pk keys had allowed origins', () => {
  const dir = tempDir();
  afterEach(() => dir.cleanup());

  it('gains the origins column on opening: its keys keep working and allow any origin; new keys keep theirs', async () => {
    const path = join(dir.path, 'keys.db');
    // The table as earlier versions created it, with one pk key in it.
    const old = new Database(path);
    old.exec(`CREATE TABLE api_keys (id TEXT PRIMARY KEY, name TEXT NOT NULL, environment TEXT NOT NULL CHECK (environment IN ('test', 'live')),
      type TEXT NOT NULL CHECK (type IN ('pk', 'sk')), scopes TEXT NOT NULL, hash TEXT NOT NULL UNIQUE, last4 TEXT NOT NULL,
      created_at TEXT NOT NULL, revoked_at TEXT, revoked_reason TEXT, rotated_from TEXT)`);
    old
      .prepare('INSERT INTO api_keys VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL)')
      .run(
        'key_01M00000000000000000000001',
        'widget',
        'test',
        'pk',
        '["nature:read"]',
        hashKey('test_pk_old'),
        '_old',
        '2026-11-01T00:00:00.000Z',
      );
    old.close();

    const store = new SqliteKeyStore(path, 'FULL');
    try {
      expect(await store.findByHash(hashKey('test_pk_old'))).toMatchObject({
        id: 'key_01M00000000000000000000001',
        type: 'pk',
        origins: [],
      });
    } finally {
      await store.close();
    }
    // Opening it again finds the column there already.
    const again = new SqliteKeyStore(path, 'FULL');
    try {
      expect((await again.list()).map((key) => key.origins)).toEqual([[]]);
    } finally {
      await again.close();
    }
  });
});
