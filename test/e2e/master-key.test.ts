import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { dataKeyLabel, generateMasterKey, MasterKeyRing, secretLabel, unwrapKey, wrappedBy } from '../../src/privacy/master-key.js';
import { type Body, client } from '../support/api-client.js';
import { filesContaining } from '../support/byte-scan.js';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { callServer, freePort, runCliProcess, runServerToExit, type ServerProcess, serverPool } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { openTestApp, type TestApp, validSubject } from '../support/test-app.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** `nature` as its own process, not waited for: it runs while the test goes on (and may be killed). */
function startCli(args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<{ status: number | null; signal: string | null; stdout: string; stderr: string }>((resolve) =>
    child.once('exit', (status, signal) => resolve({ status, signal, stdout, stderr })),
  );
  return { child, exited };
}

/** Every stored blob of both environments' data-key files, read as they are on disk. */
function storedBlobs(dataDir: string): { label: string; blob: Buffer }[] {
  return ['sandbox', 'production'].flatMap((name) => {
    const db = new Database(join(dataDir, `${name}.data-keys.db`), { readonly: true });
    try {
      const keys = db.prepare<[], { subject_id: string; key: Buffer }>('SELECT subject_id, key FROM data_keys WHERE key IS NOT NULL').all();
      const secrets = db.prepare<[], { name: string; value: Buffer }>('SELECT name, value FROM secrets').all();
      return [
        ...keys.map((row) => ({ label: dataKeyLabel(row.subject_id), blob: row.key })),
        ...secrets.map((row) => ({ label: secretLabel(row.name), blob: row.value })),
      ];
    } finally {
      db.close();
    }
  });
}

/** The master key id a store records, read as it is on disk. */
function recordedId(dataDir: string, name: string): string | undefined {
  const db = new Database(join(dataDir, `${name}.data-keys.db`), { readonly: true });
  try {
    return db.prepare<[], { key_id: string }>('SELECT key_id FROM master_key').get()?.key_id;
  } finally {
    db.close();
  }
}

/** Each SQLite database of the directory with a hash of its bytes; a write-ahead log, if any, is empty. */
function storeFiles(dataDir: string): Record<string, string> {
  for (const name of readdirSync(dataDir).filter((each) => each.endsWith('.db-wal')))
    expect(statSync(join(dataDir, name)).size, name).toBe(0);
  return Object.fromEntries(
    readdirSync(dataDir)
      .filter((name) => name.endsWith('.db'))
      .map((name) => [
        name,
        createHash('sha256')
          .update(readFileSync(join(dataDir, name)))
          .digest('hex'),
      ]),
  );
}

/** A start-up that failed as an operator should see it: status 1 and one line on stderr, no stack trace anywhere. */
function expectOneLineFailure(result: { status: number | null; stdout: string; stderr: string }, line: RegExp): void {
  expect(result.status, result.stdout + result.stderr).toBe(1);
  expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(line)]);
  expect(result.stdout + result.stderr).not.toMatch(/\n\s+at |"stack"/);
}

describe('the master key that wraps the data keys', () => {
  let t: TestApp | undefined;
  let dir: ReturnType<typeof tempDir>;
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(async () => {
    await t?.close();
    t = undefined;
    dir.cleanup();
  });

  it('is made on a fresh start (mode 0600); a copy of the stores without it opens nothing and does not start', async () => {
    t = await openTestApp();
    const keyFile = join(t.dataDir, 'master.key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const keyId = MasterKeyRing.parse(readFileSync(keyFile, 'utf8'), keyFile).current.id;
    const api = client(t, (await t.mint('test', 'sk')).raw);
    const live = client(t, (await t.mint('live', 'sk')).raw);
    const subjects = [await api.completeAssessment(), await api.completeAssessment()].map((done) => done.subjectId);
    const liveSubject = (await live.call('POST', '/v1/nature/subjects', validSubject())).body.id as string;
    const dataKeys = [
      ...(await Promise.all(subjects.map((id) => t!.envs.test.dataKeys.find(id)))),
      await t.envs.live.dataKeys.find(liveSubject),
    ];
    const secrets = [await t.envs.test.dataKeys.environmentSecret(), await t.envs.live.dataKeys.environmentSecret()];
    for (const key of [...dataKeys, ...secrets]) expect(key).toHaveLength(32);
    await t.stop();

    // A backup, a dump or a stolen disk: every store file, without the key file.
    const copy = join(dir.path, 'copy');
    cpSync(t.dataDir, copy, { recursive: true, filter: (source) => !source.endsWith('master.key') });
    expect(filesContaining(copy, [...dataKeys.map((key) => key!), ...secrets])).toEqual([]);
    for (const { blob } of storedBlobs(copy)) expect(wrappedBy(blob)).toBe(keyId);
    const before = storeFiles(copy);

    const port = String(await freePort());
    const missing = runServerToExit({ NATURE_DATA_DIR: copy, PORT: port });
    expectOneLineFailure(
      missing,
      new RegExp(
        `^start-up error: NATURE_MASTER_KEY_FILE .*/copy/master\\.key is missing; the data keys in .*/copy/sandbox\\.data-keys\\.db are wrapped by master key ${keyId}: restore that file`,
      ),
    );
    expect(existsSync(join(copy, 'master.key'))).toBe(false);
    expect(storeFiles(copy)).toEqual(before);

    // Another key (a fresh one, or the wrong file) is refused too, before anything is written.
    const wrong = new MasterKeyRing([generateMasterKey()]);
    writeFileSync(join(copy, 'master.key'), wrong.toText(), { mode: 0o600 });
    expectOneLineFailure(
      runServerToExit({ NATURE_DATA_DIR: copy, PORT: port }),
      new RegExp(
        `^start-up error: NATURE_MASTER_KEY_FILE .*/copy/master\\.key holds master key ${wrong.current.id}, but the data keys in .*sandbox\\.data-keys\\.db are wrapped by master key ${keyId}: give the file that holds that key$`,
      ),
    );
    expect(storeFiles(copy)).toEqual(before);
  });
});

describe('nature master-key rotate', () => {
  let dir: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  const pool = serverPool(() => env);
  beforeEach(() => {
    dir = tempDir();
    // The load below is far above the default rate limit of a key.
    env = { NATURE_DATA_DIR: dir.path, NATURE_RATE_LIMIT_PER_SECOND: '100000', NATURE_RATE_LIMIT_BURST: '100000' };
  });
  afterEach(async () => {
    await pool.killAll();
    dir.cleanup();
  });
  const mint = async (environment: 'test' | 'live') => {
    const result = await runCliInProcess(keyCreateArgs(environment), env);
    expect(result.status, result.stderr).toBe(0);
    return (JSON.parse(result.stdout) as { key: string }).key;
  };
  /** The subject reads whole over the API: its fields, and its audit opened with its data key read afresh. */
  const expectReadable = async (server: ServerProcess, key: string, subject: { id: string; external: string }) => {
    const read = await callServer(server, key, 'GET', `/v1/nature/subjects/${subject.id}`);
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.external_subject_id).toBe(subject.external);
    const audit = await callServer(server, key, 'GET', `/v1/nature/subjects/${subject.id}/audit`);
    expect(audit.status, JSON.stringify(audit.body)).toBe(200);
    expect(audit.body.data[0]).toMatchObject({
      type: 'subject.created',
      personal_data: 'present',
      data: { external_subject_id: subject.external },
    });
  };

  it('re-wraps every data key while subjects are created and read; afterwards the old key opens nothing', async () => {
    const [testKey, liveKey] = [await mint('test'), await mint('live')];
    const server = await pool.start();
    const keyFile = join(dir.path, 'master.key');
    const old = MasterKeyRing.parse(readFileSync(keyFile, 'utf8'), keyFile).current;
    const created: { id: string; external: string; key: string }[] = [];
    const failures: string[] = [];
    const create = async (key: string) => {
      const external = `rot-${created.length}-${Math.random().toString(36).slice(2)}`;
      const response = await callServer(server, key, 'POST', '/v1/nature/subjects', validSubject(external));
      if (response.status !== 201) failures.push(`POST ${response.status} ${JSON.stringify(response.body)}`);
      else created.push({ id: response.body.id as string, external, key });
    };
    for (let i = 0; i < 10; i += 1) await create(i % 2 === 0 ? testKey : liveKey);

    // Load: subjects created in both environments and read back (audits open data keys afresh), until told to stop.
    let stopping = false;
    const worker = async (index: number) => {
      while (!stopping) {
        await create(index % 2 === 0 ? testKey : liveKey);
        const subject = created[Math.floor(Math.random() * created.length)]!;
        const audit = await callServer(server, subject.key, 'GET', `/v1/nature/subjects/${subject.id}/audit`);
        if (audit.status !== 200 || (audit.body.data as Body[])[0]?.personal_data !== 'present')
          failures.push(`audit ${audit.status} ${JSON.stringify(audit.body)}`);
      }
    };
    const workers = [0, 1, 2, 3].map(worker);
    const rotation = startCli(['master-key', 'rotate', '--json'], env);
    const result = await rotation.exited;
    const atRotation = created.length;
    // The servers go on after it too, having met the new key.
    await eventually(async () => (created.length >= atRotation + 8 ? true : undefined), 20_000);
    stopping = true;
    await Promise.all(workers);

    expect(result.status, result.stderr).toBe(0);
    const summary = JSON.parse(result.stdout) as { from: string; to: string; resumed: boolean; rewrapped: Record<string, number> };
    expect(summary).toMatchObject({ from: old.id, resumed: false });
    expect(summary.rewrapped.test! + summary.rewrapped.live!).toBeGreaterThanOrEqual(10);
    expect(failures).toEqual([]);

    const ring = MasterKeyRing.parse(readFileSync(keyFile, 'utf8'), keyFile);
    expect(ring.keys.map((key) => key.id)).toEqual([summary.to]);
    expect(readdirSync(dir.path).filter((name) => name.startsWith('master.key'))).toEqual(['master.key']);
    const blobs = storedBlobs(dir.path);
    expect(blobs.length).toBeGreaterThanOrEqual(created.length + 2);
    for (const { label, blob } of blobs) {
      expect(wrappedBy(blob)).toBe(summary.to);
      expect(() => unwrapKey(old, blob, label)).toThrow();
      expect(unwrapKey(ring.current, blob, label)).toHaveLength(32);
    }
    for (const subject of created) await expectReadable(server, subject.key, subject);
    // A server started afresh reads them with the new key file alone.
    await pool.kill(server);
    const restarted = await pool.start();
    for (const subject of created.slice(0, 5)) await expectReadable(restarted, subject.key, subject);
  }, 120_000);

  it('is finished by a rerun after being killed half-way', async () => {
    const [testKey, liveKey] = [await mint('test'), await mint('live')];
    const server = await pool.start();
    const subjects: { id: string; external: string; key: string }[] = [];
    for (const [index, key] of [testKey, liveKey, testKey, liveKey].entries()) {
      const external = `kill-${index}`;
      const response = await callServer(server, key, 'POST', '/v1/nature/subjects', validSubject(external));
      expect(response.status).toBe(201);
      subjects.push({ id: response.body.id as string, external, key });
    }
    const keyFile = join(dir.path, 'master.key');
    const old = MasterKeyRing.parse(readFileSync(keyFile, 'utf8'), keyFile).current;

    // The production store held locked: the rotation stops there, the new key in the file and recorded in the sandbox store.
    const holder = new Database(join(dir.path, 'production.data-keys.db'));
    holder.exec('BEGIN IMMEDIATE');
    const rotation = startCli(['master-key', 'rotate'], env);
    const next = await eventually(async () => {
      const ring = MasterKeyRing.parse(readFileSync(keyFile, 'utf8'), keyFile);
      return ring.keys.length === 2 && recordedId(dir.path, 'sandbox') === ring.current.id ? ring.current : undefined;
    }, 20_000);
    rotation.child.kill('SIGKILL');
    expect((await rotation.exited).signal).toBe('SIGKILL');
    holder.exec('ROLLBACK');
    holder.close();
    expect(MasterKeyRing.parse(readFileSync(keyFile, 'utf8'), keyFile).keys.map((key) => key.id)).toEqual([next.id, old.id]);
    // The server serves throughout, old and new keys alike.
    for (const subject of subjects) await expectReadable(server, subject.key, subject);
    const during = await callServer(server, testKey, 'POST', '/v1/nature/subjects', validSubject('kill-during'));
    expect(during.status).toBe(201);
    subjects.push({ id: during.body.id as string, external: 'kill-during', key: testKey });

    const rerun = runCliProcess(['master-key', 'rotate'], env);
    expect(rerun.status, rerun.stderr).toBe(0);
    expect(rerun.stdout).toMatch(
      new RegExp(
        `^finished the interrupted rotation: ${old.id} → ${next.id}; data keys re-wrapped: \\d+ in test, \\d+ in live; .*master\\.key holds the new key alone\\n$`,
      ),
    );
    expect(MasterKeyRing.parse(readFileSync(keyFile, 'utf8'), keyFile).keys.map((key) => key.id)).toEqual([next.id]);
    expect(readdirSync(dir.path).filter((name) => name.startsWith('master.key'))).toEqual(['master.key']);
    for (const { label, blob } of storedBlobs(dir.path)) {
      expect(wrappedBy(blob)).toBe(next.id);
      expect(() => unwrapKey(old, blob, label)).toThrow();
    }
    for (const subject of subjects) await expectReadable(server, subject.key, subject);
  }, 120_000);

  it('says in one line when there is no key file to rotate', async () => {
    const result = await runCliInProcess(['master-key', 'rotate'], { NATURE_DATA_DIR: join(dir.path, 'nowhere') });
    expect(result.status).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/^nature: no master key file at .*nowhere\/master\.key \(NATURE_MASTER_KEY_FILE\): is --data-dir/),
    ]);
  });
});
