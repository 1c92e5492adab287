import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import { tempDir } from '../support/temp-dir.js';

describe('SQLite read models opened with other list indexes', () => {
  const dir = tempDir();
  afterEach(() => dir.cleanup());

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
