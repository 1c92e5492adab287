import { join } from 'node:path';
import { SqliteKeyStore } from '../../src/adapters/sqlite/key-store.js';
import { type Environment, type KeyType, mintKey, type Scope } from '../../src/domain/api-keys.js';

export interface KeySpec {
  environment: Environment;
  type: KeyType;
  scopes: Scope[];
  /** Left revoked, or rotated away (its replacement is not returned): the raw key no longer works. */
  retired?: 'revoked' | 'rotated';
}

/**
 * Mints keys straight into NATURE_DATA_DIR/keys.db, as `nature keys create` does, without starting the
 * operator command once per key (runCliInProcess is the way when the command itself is under test). Returns the
 * raw keys in the order of `specs`.
 */
export async function mintKeysInto(dataDir: string, specs: KeySpec[]): Promise<string[]> {
  const store = new SqliteKeyStore(join(dataDir, 'keys.db'), 'FULL');
  try {
    const raws: string[] = [];
    for (const spec of specs) {
      const now = new Date();
      const { raw, record } = mintKey({ name: 'test', environment: spec.environment, type: spec.type, scopes: spec.scopes }, now);
      await store.insert(record);
      if (spec.retired === 'revoked') await store.revoke(record.id, now.toISOString(), 'revoked');
      if (spec.retired === 'rotated')
        await store.rotate(
          record.id,
          mintKey({ name: 'test', environment: spec.environment, type: spec.type, scopes: spec.scopes }, now, record.id).record,
          now.toISOString(),
        );
      raws.push(raw);
    }
    return raws;
  } finally {
    await store.close();
  }
}
