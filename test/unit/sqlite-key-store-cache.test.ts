import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteKeyStore } from '../../src/adapters/sqlite/key-store.js';
import { type ApiKeyRecord, hashKey } from '../../src/domain/api-keys.js';
import { tempDir } from '../support/temp-dir.js';

const key = (id: string, raw: string): ApiKeyRecord => ({
  id,
  name: 'ci',
  environment: 'test',
  type: 'sk',
  scopes: ['nature:read', 'nature:write'],
  hash: hashKey(raw),
  last4: raw.slice(-4),
  created_at: '2026-11-24T00:00:00.000Z',
  revoked_at: null,
  revoked_reason: null,
  rotated_from: null,
  origins: [],
  last_used_at: null,
});

// The server looks each request's key up in a cache; these are the changes it must see at once.
describe('the SQLite key store remembers found keys only while keys.db is unchanged', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  it('sees a revocation and a rotation made through another connection (another process) on the next lookup', async () => {
    const path = join(dir.path, 'keys.db');
    const server = new SqliteKeyStore(path, 'FULL');
    const operator = new SqliteKeyStore(path, 'FULL');
    try {
      await operator.insert(key('key_01M00000000000000000000001', 'test_sk_first'));
      await operator.insert(key('key_01M00000000000000000000002', 'test_sk_other'));
      expect(await server.findByHash(hashKey('test_sk_first'))).toMatchObject({ revoked_at: null });
      expect(await server.findByHash(hashKey('test_sk_other'))).toMatchObject({ revoked_at: null });

      await operator.revoke('key_01M00000000000000000000001', '2026-11-24T01:00:00.000Z', 'revoked');
      expect(await server.findByHash(hashKey('test_sk_first'))).toMatchObject({ revoked_reason: 'revoked' });

      await operator.rotate(
        'key_01M00000000000000000000002',
        key('key_01M00000000000000000000003', 'test_sk_newer'),
        '2026-11-24T02:00:00.000Z',
      );
      expect(await server.findByHash(hashKey('test_sk_other'))).toMatchObject({ revoked_reason: 'rotated' });
      expect(await server.findByHash(hashKey('test_sk_newer'))).toMatchObject({ id: 'key_01M00000000000000000000003' });
    } finally {
      await server.close();
      await operator.close();
    }
  });

  it('sees its own revocation, and a key inserted after a lookup that found nothing', async () => {
    const store = new SqliteKeyStore(join(dir.path, 'keys.db'), 'FULL');
    try {
      expect(await store.findByHash(hashKey('test_sk_later'))).toBeUndefined();
      await store.insert(key('key_01M00000000000000000000004', 'test_sk_later'));
      expect(await store.findByHash(hashKey('test_sk_later'))).toMatchObject({ revoked_at: null });
      await store.revoke('key_01M00000000000000000000004', '2026-11-24T03:00:00.000Z', 'revoked');
      expect(await store.findByHash(hashKey('test_sk_later'))).toMatchObject({ revoked_reason: 'revoked' });
    } finally {
      await store.close();
    }
  });
});
