import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import { tempDir } from '../support/temp-dir.js';

/** The read-model file as the previous version wrote it: documents WITHOUT ROWID, list indexes over every collection. */
const PREVIOUS_SCHEMA = `
CREATE TABLE documents (collection TEXT NOT NULL, id TEXT NOT NULL, doc TEXT NOT NULL, PRIMARY KEY (collection, id)) WITHOUT ROWID;
CREATE TABLE projection_checkpoints (projection TEXT PRIMARY KEY, position TEXT NOT NULL);
CREATE INDEX documents_things_tag ON documents (collection, json_extract(doc, '$.tag'), id);
`;

describe('SQLite read models written by the previous version', () => {
  const dir = tempDir();
  afterEach(() => dir.cleanup());

  it('keep their documents and checkpoints, in the current table with per-collection indexes', async () => {
    const path = join(dir.path, 'read.db');
    const before = new Database(path);
    before.exec(PREVIOUS_SCHEMA);
    const put = before.prepare('INSERT INTO documents VALUES (?, ?, ?)');
    for (const [collection, id, tag] of [
      ['things', 'thg_1', 'a'],
      ['things', 'thg_2', 'b'],
      ['things', 'thg_3', 'a'],
      ['others', 'thg_1', 'a'],
    ]) {
      put.run(collection, id, JSON.stringify({ id, tag }));
    }
    before.prepare('INSERT INTO projection_checkpoints VALUES (?, ?)').run('things', '340282366920938463463374607431768211455');
    before.close();

    const store = new SqliteReadModelStore(path, 'NORMAL', [{ collection: 'things', field: 'tag' }]);
    expect(await store.checkpoint('things')).toBe(2n ** 128n - 1n);
    expect((await store.list('things', { limit: 10, where: { tag: 'a' } })).data).toEqual([
      { id: 'thg_3', tag: 'a' },
      { id: 'thg_1', tag: 'a' },
    ]);
    expect(await store.get('others', 'thg_1')).toEqual({ id: 'thg_1', tag: 'a' });
    await store.commit('things', 1n, [{ collection: 'things', id: 'thg_2', doc: { id: 'thg_2', tag: 'a' } }]);
    expect((await store.list('things', { limit: 10, where: { tag: 'a' } })).data.map((doc) => doc.id)).toEqual(['thg_3', 'thg_2', 'thg_1']);
    await store.close();

    const after = new Database(path, { readonly: true });
    const schema = after
      .prepare<[], { name: string; sql: string | null }>("SELECT name, sql FROM sqlite_master WHERE tbl_name = 'documents'")
      .all();
    after.close();
    expect(schema.find((entry) => entry.name === 'documents')!.sql).not.toMatch(/WITHOUT ROWID/);
    expect(schema.map((entry) => entry.name).sort()).toEqual(['documents', 'sqlite_autoindex_documents_1', 'things_by_tag']);
    // Opening it again changes nothing.
    const again = new SqliteReadModelStore(path, 'NORMAL', [{ collection: 'things', field: 'tag' }]);
    expect((await again.list('things', { limit: 10 })).data).toHaveLength(3);
    await again.close();
  });

  it('drop a list index no longer asked for, keeping the others', async () => {
    const path = join(dir.path, 'read.db');
    const first = new SqliteReadModelStore(path, 'NORMAL', [
      { collection: 'subjects', field: 'external_subject_id' },
      { collection: 'subjects', field: 'status' },
    ]);
    await first.close();
    const store = new SqliteReadModelStore(path, 'NORMAL', [
      { collection: 'subjects', field: 'external_ref' },
      { collection: 'subjects', field: 'status' },
    ]);
    await store.close();
    const db = new Database(path, { readonly: true });
    const names = db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'documents'").all();
    db.close();
    expect(names.map(({ name }) => name).sort()).toEqual([
      'sqlite_autoindex_documents_1',
      'subjects_by_external_ref',
      'subjects_by_status',
    ]);
  });
});
