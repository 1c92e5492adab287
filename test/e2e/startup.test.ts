import { chmodSync, existsSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { freePort, type Runner, runServerToExit, startServerWith, unprivileged } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { validSubject } from '../support/test-app.js';

/** A start-up that failed as an operator should see it: status 1 and one line on stderr, no stack trace anywhere. */
function expectOneLineFailure(result: { status: number | null; stdout: string; stderr: string }, line: RegExp): void {
  expect(result.status, result.stdout + result.stderr).toBe(1);
  expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(line)]);
  expect(result.stdout + result.stderr).not.toMatch(/\n\s+at |"stack"/);
}

describe('start-up failures an operator can fix, each in one line', () => {
  let dir: ReturnType<typeof tempDir>;
  let port: number;
  const start = (env: Record<string, string> = {}, runner?: Runner) =>
    runServerToExit({ NATURE_DATA_DIR: join(dir.path, 'data'), PORT: String(port), ...env }, runner);
  /** A data directory with a key store in it, as an install has after its first key. */
  const installed = async () => {
    const minted = await runCliInProcess(['keys', 'create', '--env', 'test', '--type', 'sk', '--scope', 'nature:read', '--name', 'ci'], {
      NATURE_DATA_DIR: join(dir.path, 'data'),
    });
    expect(minted.status, minted.stderr).toBe(0);
    return join(dir.path, 'data');
  };
  beforeEach(async () => {
    dir = tempDir();
    port = await freePort();
  });
  afterEach(() => {
    // Modes back, so that a user who is not root can remove what the test made read-only.
    for (const path of [dir.path, join(dir.path, 'data')]) if (existsSync(path) && statSync(path).isDirectory()) chmodSync(path, 0o700);
    dir.cleanup();
  });

  it('stops when the port is in use', async () => {
    const other: Server = createServer();
    await new Promise<void>((resolve) => other.listen(port, '127.0.0.1', resolve));
    try {
      expectOneLineFailure(start(), new RegExp(`^start-up error: port ${port} on 127.0.0.1 is already in use \\(EADDRINUSE\\)`));
    } finally {
      other.close();
    }
  });

  it('stops when HOST is not an address of this machine', () => {
    expectOneLineFailure(start({ HOST: '192.0.2.1' }), /^start-up error: HOST=192.0.2.1 is not an address of this machine/);
  });

  it('stops when NATURE_PUBLIC_URL is more than an origin', () => {
    expectOneLineFailure(
      start({ NATURE_PUBLIC_URL: 'https://api.example.com/nature' }),
      /^configuration error: NATURE_PUBLIC_URL="https:\/\/api\.example\.com\/nature" must be the http:\/\/ or https:\/\/ origin/,
    );
  });

  it('stops when the data directory is a file', () => {
    writeFileSync(join(dir.path, 'data'), 'not a directory');
    expectOneLineFailure(start(), /^start-up error: the data directory .*\/data is a file, not a directory/);
  });

  it('stops when the data directory is read-only, rather than answer 500 to every write', async () => {
    const data = await installed();
    chmodSync(data, 0o555);
    expectOneLineFailure(
      start({}, unprivileged),
      /^start-up error: the data directory .*\/data is not readable and writable by this user \(uid \d+\) \(EACCES\)$/,
    );
  });

  it('stops when the data directory cannot be read', async () => {
    const data = await installed();
    chmodSync(data, 0o300);
    expectOneLineFailure(start({}, unprivileged), /^start-up error: the data directory .*\/data is not readable and writable by this user/);
  });

  it('stops when the data directory cannot be created', () => {
    chmodSync(dir.path, 0o555);
    expectOneLineFailure(
      start({}, unprivileged),
      /^start-up error: the data directory .*\/data cannot be created by this user \(uid \d+\) \(EACCES\)$/,
    );
  });

  it('stops naming a store file that is read-only', async () => {
    const data = await installed();
    chmodSync(join(data, 'keys.db'), 0o444);
    expectOneLineFailure(start({}, unprivileged), /^start-up error: .*\/data\/keys\.db is not readable and writable by this user/);
  });

  it.each(['keys.db', 'production.events.db', 'sandbox.read.db'])('stops naming a damaged database: %s', (file) => {
    mkdirSync(join(dir.path, 'data'));
    writeFileSync(join(dir.path, 'data', file), 'these bytes are not a SQLite database, whatever the name says');
    expectOneLineFailure(
      start(),
      new RegExp(
        `^start-up error: .*/data/${file.replace('.', '\\.')} is damaged or not a SQLite database \\(SQLITE_NOTADB: .*\\); restore it from a backup$`,
      ),
    );
  });

  describe('a backend server that does not answer: one line naming it and its host, never its credentials', () => {
    // A port nothing listens on; a short bound, so the test does not wait the default 10 s for MongoDB.
    const closed = () => freePort();
    const bounded = { NATURE_BACKEND_TIMEOUT_MS: '2000' };

    it('stops when EVENTSTORE_URL names no server', async () => {
      const port = await closed();
      const result = start({
        ...bounded,
        NATURE_EVENT_STORE: 'eventstoredb',
        EVENTSTORE_URL: `esdb://admin:s3cret-pw@127.0.0.1:${port}?tls=false`,
      });
      expectOneLineFailure(
        result,
        new RegExp(`^start-up error: EventStoreDB at 127\\.0\\.0\\.1:${port} \\(EVENTSTORE_URL\\) did not answer`),
      );
      expect(result.stdout + result.stderr).not.toContain('s3cret-pw');
    });

    it('stops when MONGODB_URL names no server', async () => {
      const port = await closed();
      const result = start({
        ...bounded,
        NATURE_READ_MODELS: 'mongodb',
        MONGODB_URL: `mongodb://nature:s3cret-pw@127.0.0.1:${port}/?directConnection=true`,
      });
      expectOneLineFailure(result, new RegExp(`^start-up error: MongoDB at 127\\.0\\.0\\.1:${port} \\(MONGODB_URL\\) did not answer`));
      expect(result.stdout + result.stderr).not.toContain('s3cret-pw');
    });

    it('stops when NATS_URL names no server', async () => {
      const port = await closed();
      expectOneLineFailure(
        start({ ...bounded, NATURE_BUS: 'nats', NATS_URL: `nats://127.0.0.1:${port}` }),
        new RegExp(`^start-up error: NATS at 127\\.0\\.0\\.1:${port} \\(NATS_URL\\) did not answer`),
      );
    });

    it('names the first of several that do not answer, having asked them all at once', async () => {
      const [eventStore, bus] = [await closed(), await closed()];
      const result = start({
        ...bounded,
        NATURE_EVENT_STORE: 'eventstoredb',
        EVENTSTORE_URL: `esdb://127.0.0.1:${eventStore}?tls=false`,
        NATURE_BUS: 'nats',
        NATS_URL: `nats://127.0.0.1:${bus}`,
      });
      expectOneLineFailure(result, /^start-up error: EventStoreDB at /);
    });

    it('refuses a URL scheme the installed client cannot use before trying it', () => {
      expectOneLineFailure(
        start({ NATURE_EVENT_STORE: 'eventstoredb', EVENTSTORE_URL: 'kurrentdb://127.0.0.1:2113?tls=false' }),
        /^configuration error: EVENTSTORE_URL="kurrentdb:\/\/127\.0\.0\.1:2113\?tls=false" must be an esdb:\/\//,
      );
      expectOneLineFailure(
        start({ NATURE_BUS: 'nats', NATS_URL: 'ws://127.0.0.1:8080' }),
        /^configuration error: NATS_URL="ws:\/\/127\.0\.0\.1:8080" must be a nats:\/\/ or tls:\/\//,
      );
    });
  });

  it('stops naming a database that another process holds locked', async () => {
    const data = await installed();
    const holder = new Database(join(data, 'keys.db'));
    holder.pragma('locking_mode = EXCLUSIVE');
    holder.exec('BEGIN EXCLUSIVE; COMMIT');
    try {
      expectOneLineFailure(
        start(),
        /^start-up error: .*\/data\/keys\.db is locked by another process \(SQLITE_BUSY: .*\); stop that process, then try again$/,
      );
    } finally {
      holder.close();
    }
  });
});

describe('the data directory is for the service user alone', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => {
    dir.cleanup();
  });

  /** Every entry of the data directory with its permission bits, and the directory's own. */
  const modes = (data: string) => ({
    [data]: (statSync(data).mode & 0o777).toString(8),
    ...Object.fromEntries(readdirSync(data).map((name) => [name, (statSync(join(data, name)).mode & 0o777).toString(8)])),
  });
  const expectOwnerOnly = (data: string) => {
    const found = modes(data);
    // The stores, their WAL companions (open while the server runs) and the master key are all there.
    expect(Object.keys(found)).toEqual(expect.arrayContaining(['keys.db', 'sandbox.events.db', 'sandbox.events.db-wal', 'master.key']));
    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((name) => [name, name === data ? '700' : '600'])));
  };

  it('makes the directory 0700 and every file in it 0600, and narrows a directory an older version left open', async () => {
    const data = join(dir.path, 'data');
    const server = await startServerWith({ NATURE_DATA_DIR: data }, unprivileged);
    try {
      const minted = await runCliInProcess(keyCreateArgs('test', 'modes'), { NATURE_DATA_DIR: data });
      const key = JSON.parse(minted.stdout).key as string;
      const created = await fetch(`${server.url}/v1/nature/subjects`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(validSubject()),
      });
      expect(created.status).toBe(201);
      expectOwnerOnly(data);
    } finally {
      server.process.kill('SIGKILL');
      await server.exited;
    }

    // As a version that made its files 0644 in a 0755 directory left them.
    chmodSync(data, 0o755);
    for (const name of readdirSync(data)) chmodSync(join(data, name), 0o644);
    const again = await startServerWith({ NATURE_DATA_DIR: data }, unprivileged);
    try {
      expectOwnerOnly(data);
    } finally {
      again.process.kill('SIGKILL');
      await again.exited;
    }
  });
});

describe('readiness of the data directory', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(() => {
    chmodSync(dir.path, 0o700);
    dir.cleanup();
  });

  it('answers 503 naming data_dir once the data directory turns read-only', async () => {
    const server = await startServerWith({ NATURE_DATA_DIR: dir.path }, unprivileged);
    try {
      const ready = await fetch(`${server.url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toMatchObject({ checks: { data_dir: 'ok' } });

      chmodSync(dir.path, 0o555);
      const readOnly = await fetch(`${server.url}/readyz`);
      expect(readOnly.status).toBe(503);
      expect(await readOnly.json()).toMatchObject({ status: 'unavailable', checks: { data_dir: 'unavailable', keys: 'ok' } });
    } finally {
      server.process.kill('SIGKILL');
      await server.exited;
    }
  });
});
