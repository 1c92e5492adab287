import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { tempDir } from '../support/temp-dir.js';

/** Another process writing to a new file still in rollback mode, as a replica making its tables at the same moment does. */
const HOLDER = `
const Database = require('better-sqlite3');
const db = new Database(process.argv[1]);
db.exec('BEGIN IMMEDIATE');
db.exec('CREATE TABLE IF NOT EXISTS t (a)');
console.log('held');
setTimeout(() => { db.exec('COMMIT'); db.close(); }, 300);
`;

describe('opening a SQLite file that another process is opening at the same moment', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => dir.cleanup());

  it('waits for the other to let go before switching it to WAL, instead of failing the start', async () => {
    const path = join(dir.path, 'data-keys.db');
    new Database(path).close();
    const holder = spawn(process.execPath, ['-e', HOLDER, path], { cwd: process.cwd(), stdio: ['ignore', 'pipe', 'inherit'] });
    const [line] = await once(createInterface({ input: holder.stdout }), 'line');
    expect(line).toBe('held');
    const db = openDatabase(path, 'FULL');
    try {
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
    await once(holder, 'exit');
  });
});
