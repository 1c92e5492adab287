import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqliteKeyStore } from '../../src/adapters/sqlite/key-store.js';
import { mintKey } from '../../src/domain/api-keys.js';
import { KeyCache } from '../../src/http/key-cache.js';
import { tempDir } from '../support/temp-dir.js';

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const minted = () => mintKey({ name: 'ci', environment: 'test', type: 'sk', scopes: ['nature:read'] }, new Date());

describe('the HTTP key cache', () => {
  let dir: ReturnType<typeof tempDir>;
  let server: SqliteKeyStore;
  let operator: SqliteKeyStore;
  beforeEach(() => {
    dir = tempDir();
    server = new SqliteKeyStore(join(dir.path, 'keys.db'), 'FULL');
    operator = new SqliteKeyStore(join(dir.path, 'keys.db'), 'FULL');
  });
  afterEach(async () => {
    await server.close();
    await operator.close();
    dir.cleanup();
  });

  it('admits a key found before without asking the store again', async () => {
    const { raw, record } = minted();
    await server.insert(record);
    const cache = new KeyCache(server);
    expect(cache.cached(raw)).toBeUndefined();
    expect(await cache.find(raw)).toMatchObject({ id: record.id });
    const lookups = vi.spyOn(server, 'findByHash');
    await nextTurn();
    expect(cache.cached(raw)).toMatchObject({ id: record.id });
    expect(lookups).not.toHaveBeenCalled();
  });

  it('keeps no unknown key', async () => {
    const cache = new KeyCache(server);
    const { raw } = minted();
    expect(await cache.find(raw)).toBeUndefined();
    expect(cache.cached(raw)).toBeUndefined();
  });

  it("sees this process's revocation at once, and another process's from the next event-loop turn", async () => {
    const mine = minted();
    const theirs = minted();
    await server.insert(mine.record);
    await server.insert(theirs.record);
    const cache = new KeyCache(server);
    await cache.find(mine.raw);
    await cache.find(theirs.raw);

    await server.revoke(mine.record.id, new Date().toISOString(), 'revoked');
    expect(cache.cached(mine.raw)).toBeUndefined();
    expect(await cache.find(mine.raw)).toMatchObject({ revoked_reason: 'revoked' });

    // Any change empties the cache: the other key is found again, then served from the cache.
    await cache.find(theirs.raw);
    await nextTurn();
    expect(cache.cached(theirs.raw)).toMatchObject({ revoked_at: null });
    await operator.revoke(theirs.record.id, new Date().toISOString(), 'revoked');
    await nextTurn();
    expect(cache.cached(theirs.raw)).toBeUndefined();
    expect(await cache.find(theirs.raw)).toMatchObject({ revoked_reason: 'revoked' });
  });
});
