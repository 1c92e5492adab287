import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import { tempDir } from '../support/temp-dir.js';

/** The read-model file as the version before positions and tombstones wrote it: a rowid table, `doc` required. */
const PREVIOUS_SCHEMA = `
CREATE TABLE documents (collection TEXT NOT NULL, id TEXT NOT NULL, doc TEXT NOT NULL, UNIQUE (collection, id));
CREATE TABLE projection_checkpoints (projection TEXT PRIMARY KEY, position TEXT NOT NULL);
CREATE INDEX things_by_tag ON documents (json_extract(doc, '$.tag'), id) WHERE collection = 'things';
`;

describe('SQLite read models written before documents kept their positions', () => {
  const dir = tempDir();
  afterEach(() => dir.cleanup());

  it('keep their documents and checkpoints; any write replaces such a document, and a removal leaves its tombstone', async () => {
    const path = join(dir.path, 'read.db');
    const before = new Database(path);
    before.exec(PREVIOUS_SCHEMA);
    const put = before.prepare('INSERT INTO documents VALUES (?, ?, ?)');
    for (const [id, tag] of [
      ['thg_1', 'a'],
      ['thg_2', 'b'],
      ['thg_3', 'a'],
    ])
      put.run('things', id, JSON.stringify({ id, tag }));
    before.prepare('INSERT INTO projection_checkpoints VALUES (?, ?)').run('things', '40');
    before.close();

    const store = new SqliteReadModelStore(path, 'NORMAL', [{ collection: 'things', field: 'tag' }]);
    expect(await store.checkpoint('things')).toBe(40n);
    expect((await store.getMany('things', ['thg_1'])).get('thg_1')).toEqual({ doc: { id: 'thg_1', tag: 'a' }, position: undefined });
    // A replay from an older checkpoint (a rebuild) rewrites them, however early its events.
    await store.commit('things', 1n, [
      { collection: 'things', id: 'thg_2', doc: { id: 'thg_2', tag: 'a' } },
      { collection: 'things', id: 'thg_3', doc: null },
    ]);
    expect((await store.list('things', { limit: 10, where: { tag: 'a' } })).data).toEqual([
      { id: 'thg_2', tag: 'a' },
      { id: 'thg_1', tag: 'a' },
    ]);
    expect(await store.checkpoint('things')).toBe(40n);
    await store.commit('things', 2n, [{ collection: 'things', id: 'thg_3', doc: { id: 'thg_3', tag: 'a' }, position: 1n }]);
    expect(await store.get('things', 'thg_3')).toBeUndefined();
    await store.close();

    // Opening it again changes nothing.
    const again = new SqliteReadModelStore(path, 'NORMAL', [{ collection: 'things', field: 'tag' }]);
    expect((await again.list('things', { limit: 10 })).data.map((doc) => doc.id)).toEqual(['thg_2', 'thg_1']);
    expect((await again.getMany('things', ['thg_2', 'thg_3'])).get('thg_3')).toEqual({ doc: undefined, position: 1n });
    await again.close();
  });
});
