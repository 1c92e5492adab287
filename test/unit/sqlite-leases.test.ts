import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import { tempDir } from '../support/temp-dir.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** Another process that takes the lease on the file for a minute, says so, and waits to be killed. */
function holdLeaseElsewhere(path: string) {
  const script = `
    import { SqliteReadModelStore } from './src/adapters/sqlite/read-model-store.ts';
    const store = new SqliteReadModelStore(${JSON.stringify(path)}, 'NORMAL');
    console.log('token ' + (await store.acquireLease('leader', 'elsewhere', 60_000)));
    setInterval(() => undefined, 1000);
  `;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const token = new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      const found = /token (\d+)/.exec(String(chunk));
      if (found) resolve(Number(found[1]));
    });
    void exited.then(() => reject(new Error('the lease holder exited first')));
  });
  return {
    token,
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

describe('SQLite leases between processes of one host', () => {
  const dir = tempDir();
  afterEach(() => dir.cleanup());

  it("frees a lease at once when its holder's process has died, long before it would expire", async () => {
    const path = join(dir.path, 'read.db');
    const store = new SqliteReadModelStore(path, 'NORMAL');
    const holder = holdLeaseElsewhere(path);
    try {
      expect(await holder.token).toBe(1);
      // Alive, it holds the lease for its minute.
      expect(await store.acquireLease('leader', 'here', 60_000)).toBeUndefined();
      await holder.kill();
      expect(await store.acquireLease('leader', 'here', 60_000)).toBe(2);
    } finally {
      await holder.kill();
      await store.close();
    }
  });

  it('keeps the lease of a holder in another container (another host name, a pid unknown here) until it expires', async () => {
    const path = join(dir.path, 'read.db');
    const store = new SqliteReadModelStore(path, 'NORMAL');
    try {
      // What a replica in a container of its own writes: its host name, and a pid of its own process namespace.
      const other = new Database(path);
      other
        .prepare('INSERT INTO leases (name, holder, token, expires_at, pid, host) VALUES (?, ?, ?, ?, ?, ?)')
        .run('leader', 'elsewhere', 1, Date.now() + 60_000, 4_194_000, 'another-container');
      other.close();
      expect(await store.acquireLease('leader', 'here', 60_000)).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
