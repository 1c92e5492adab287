import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SqliteIdempotencyStore } from '../../src/adapters/sqlite/idempotency-store.js';
import { tempDir } from '../support/temp-dir.js';

const request = (now: Date) => ({ key: 'k-1', fingerprint: 'f', now, leaseMs: 30_000, ttlMs: 86_400_000 });

/** Another process claims the key and says so, then waits to be killed. */
const CLAIMANT = `
import { SqliteIdempotencyStore } from './src/adapters/sqlite/idempotency-store.ts';
const store = new SqliteIdempotencyStore(process.argv[1], 'FULL');
const claim = await store.claim({ key: 'k-1', fingerprint: 'f', now: new Date(), leaseMs: 30_000, ttlMs: 86_400_000 });
process.stdout.write(claim.outcome + '\\n');
setInterval(() => undefined, 1000);
`;

describe('SQLite idempotency keys held by a process', () => {
  const dirs: ReturnType<typeof tempDir>[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) dir.cleanup();
  });

  it('lets a retry in at once when the process that claimed the key was killed, not after the lease; not while it lives', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const path = join(dir.path, 'idempotency.db');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', CLAIMANT, path], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const [said] = (await once(child.stdout!, 'data')) as [Buffer];
    expect(said.toString().trim()).toBe('claimed');

    const store = new SqliteIdempotencyStore(path, 'FULL');
    // The claimant runs: its request is still running, whatever the lease.
    expect(await store.claim(request(new Date()))).toEqual({ outcome: 'in_use' });
    child.kill('SIGKILL');
    await once(child, 'exit');
    // Well within the 30 s lease, the key is this retry's.
    expect(await store.claim(request(new Date()))).toMatchObject({ outcome: 'claimed' });
    await store.close();
  });

  it('keeps a key claimed by a request of its own process in use until its lease runs out', async () => {
    const dir = tempDir();
    dirs.push(dir);
    const store = new SqliteIdempotencyStore(join(dir.path, 'idempotency.db'), 'FULL');
    const now = new Date();
    expect(await store.claim(request(now))).toMatchObject({ outcome: 'claimed' });
    expect(await store.claim(request(now))).toEqual({ outcome: 'in_use' });
    expect(await store.claim(request(new Date(now.getTime() + 30_000)))).toMatchObject({ outcome: 'claimed' });
    await store.close();
  });
});
