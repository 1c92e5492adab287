import { type ClientRequest, request as httpRequest } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { runCliProcess, type ServerProcess, serverPool, startServer, waitForOutput } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { validSubject } from '../support/test-app.js';

// Response bodies are checked field by field below; their static type adds nothing.
const json = async (response: Response): Promise<any> => response.json();

/**
 * The service as a user runs it: its own process, real HTTP, keys from the operator command. The command runs in
 * this test's process (to the server, another process all the same) except where its own process is the point.
 */
describe('the server and the operator command as processes', () => {
  let dir: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  const pool = serverPool(() => env);
  beforeEach(() => {
    dir = tempDir();
    env = { NATURE_DATA_DIR: dir.path };
  });
  afterEach(async () => {
    await pool.killAll();
    dir.cleanup();
  });
  const start = () => pool.start();
  const mint = async (...extra: string[]) => {
    const result = await runCliInProcess([...keyCreateArgs(), ...extra], env);
    expect(result.status, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as { id: string; key: string; scopes: string[] };
  };
  const call = (server: ServerProcess, key: string, path: string, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });

  it('creates and reads a subject over HTTP with a minted key; a subject acknowledged just before SIGKILL survives the restart', async () => {
    const { key } = await mint();
    const server = await start();
    const created = await call(server, key, '/v1/nature/subjects', validSubject('emp-kill'));
    expect(created.status).toBe(201);
    server.process.kill('SIGKILL');
    expect(await server.exited).toBe('SIGKILL');
    const subject = await json(created);

    const restarted = await start();
    const read = await call(restarted, key, `/v1/nature/subjects/${subject.id}`);
    expect(read.status).toBe(200);
    expect(await json(read)).toEqual(subject);
    const listed = await json(await call(restarted, key, '/v1/nature/subjects?external_subject_id=emp-kill'));
    expect(listed.data).toEqual([subject]);
  });

  it('loses none of a burst of acknowledged creates when killed as the last 201 arrives', async () => {
    const { key } = await mint();
    const server = await start();
    const responses = await Promise.all(
      Array.from({ length: 25 }, (_, i) => call(server, key, '/v1/nature/subjects', validSubject(`burst-${i}`))),
    );
    server.process.kill('SIGKILL');
    await server.exited;
    expect(responses.map((r) => r.status)).toEqual(Array(25).fill(201));
    const ids = await Promise.all(responses.map(async (r) => (await json(r)).id as string));

    const restarted = await start();
    for (const id of ids) expect((await call(restarted, key, `/v1/nature/subjects/${id}`)).status).toBe(200);
    const page = await json(await call(restarted, key, '/v1/nature/subjects?limit=100'));
    expect(page.data).toHaveLength(25);
  });

  it('rotates a key while the server runs: the old key is refused at once, the new one works', async () => {
    const minted = await mint();
    const server = await start();
    expect((await call(server, minted.key, '/v1/nature/subjects')).status).toBe(200);
    const rotated = runCliProcess(['keys', 'rotate', minted.id, '--json'], env);
    expect(rotated.status, rotated.stderr).toBe(0);
    const next = JSON.parse(rotated.stdout) as { id: string; key: string; scopes: string[]; rotated_from: string };
    expect(next).toMatchObject({ key: expect.stringMatching(/^test_sk_/), scopes: minted.scopes, rotated_from: minted.id });
    expect(next.key).not.toBe(minted.key);
    const old = await call(server, minted.key, '/v1/nature/subjects');
    expect(old.status).toBe(401);
    expect((await json(old)).code).toBe('unauthenticated');
    expect((await call(server, next.key, '/v1/nature/subjects')).status).toBe(200);
  });

  it('revokes a key for good: 401 afterwards, and the command refuses to revoke or rotate it again', async () => {
    const minted = await mint();
    const server = await start();
    const revoked = await runCliInProcess(['keys', 'revoke', minted.id], env);
    expect(revoked.status, revoked.stderr).toBe(0);
    expect((await call(server, minted.key, '/v1/nature/subjects')).status).toBe(401);
    for (const again of [['revoke'], ['rotate']]) {
      const result = await runCliInProcess(['keys', ...again, minted.id], env);
      expect(result.status).toBe(1);
      expect(result.stderr).toMatch(/already revoked/);
    }
    expect((await runCliInProcess(['keys', 'revoke', 'key_nope'], env)).stderr).toMatch(/no key key_nope/);
  });

  it('prints the raw key once: alone on stdout when minting, never in the listing', () => {
    const plain = runCliProcess(['keys', 'create', '--env', 'live', '--type', 'pk', '--scope', 'nature:read', '--name', 'widget'], env);
    expect(plain.status).toBe(0);
    const raw = plain.stdout.trim();
    expect(raw).toMatch(/^live_pk_[0-9A-Za-z]{40}$/);
    expect(plain.stderr).toMatch(/only time/);
    const list = runCliProcess(['keys', 'list', '--json'], env);
    expect(list.stdout).not.toContain(raw);
    expect(JSON.parse(list.stdout)).toEqual([
      expect.objectContaining({
        name: 'widget',
        environment: 'live',
        type: 'pk',
        scopes: ['nature:read'],
        status: 'active',
        ends_with: raw.slice(-4),
      }),
    ]);
    expect(list.stdout).not.toMatch(/[0-9a-f]{64}/);
  });

  it.each([
    [['--env', 'prod', '--type', 'sk', '--scope', 'nature:read', '--name', 'x'], /--env/],
    [['--env', 'test', '--type', 'sk', '--scope', 'content:read', '--name', 'x'], /content:read/],
    [['--env', 'test', '--type', 'pk', '--scope', 'situational:write', '--name', 'x'], /situational/],
    [['--env', 'test', '--type', 'pk', '--scope', 'careers:read', '--name', 'x'], /careers:read/],
    [['--env', 'test', '--type', 'sk', '--name', 'x'], /--scope/],
    [['--env', 'test', '--type', 'xk', '--scope', 'nature:read', '--name', 'x'], /--type/],
  ])('refuses to mint with %j', async (args, message) => {
    const result = await runCliInProcess(['keys', 'create', ...args], env);
    expect(result.status).not.toBe(0);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).not.toMatch(/_(pk|sk)_/);
  });

  /** A POST whose headers are sent at once and whose body waits for `finish`: a request in flight. */
  const inFlight = (server: ServerProcess, key: string, body: string) => {
    const request: ClientRequest = httpRequest(`${server.url}/v1/nature/subjects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
    });
    const answered = new Promise<{ status: number | undefined; body: any }>((resolve, reject) => {
      request.on('response', (response) => {
        let text = '';
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode, body: JSON.parse(text) }));
      });
      request.on('error', reject);
    });
    request.write(body.slice(0, 1));
    return { answered, finish: () => request.end(body.slice(1)) };
  };

  it('on SIGTERM finishes the request in flight, closes the stores and exits 0; the next start serves what it wrote', async () => {
    const { key } = await mint();
    // Debug level logs each request's arrival: that is how the test knows the request is in flight.
    env = { ...env, LOG_LEVEL: 'debug' };
    const server = await start();
    const request = inFlight(server, key, JSON.stringify(validSubject('emp-graceful')));
    await waitForOutput(server, /incoming request/);
    server.process.kill('SIGTERM');
    await waitForOutput(server, /stopping: finishing the requests in flight/);
    request.finish();
    const created = await request.answered;
    expect(created.status).toBe(201);
    expect(await server.exited).toBe(0);
    expect(server.output()).toMatch(/"msg":"stopped"/);
    // The write path's own figures, for the operator and the benchmarks: at least this subject's commit.
    const figures = server
      .output()
      .split('\n')
      .filter((line) => line.includes('"msg":"runtime figures"'))
      .map((line) => JSON.parse(line));
    expect(figures).toEqual([
      expect.objectContaining({
        groupCommits: expect.objectContaining({ count: expect.any(Number), unitsMax: expect.any(Number) }),
        eventLoopDelay: expect.objectContaining({ msP99: expect.any(Number) }),
      }),
    ]);
    expect(figures[0].groupCommits.count).toBeGreaterThan(0);
    expect(figures[0].groupCommits.unitsMax).toBeGreaterThan(0);

    const restarted = await start();
    const read = await call(restarted, key, `/v1/nature/subjects/${created.body.id}`);
    expect(read.status).toBe(200);
    expect(await json(read)).toEqual(created.body);
  });

  it('exits at once on a second signal while a request in flight holds up the shutdown', async () => {
    const { key } = await mint();
    env = { ...env, LOG_LEVEL: 'debug' };
    const server = await start();
    const request = inFlight(server, key, JSON.stringify(validSubject('emp-never-finished')));
    request.answered.catch(() => {}); // its connection drops with the process
    await waitForOutput(server, /incoming request/);
    server.process.kill('SIGTERM');
    await waitForOutput(server, /stopping: finishing the requests in flight/);
    server.process.kill('SIGINT');
    expect(await server.exited).toBe(130);
    expect(server.output()).toMatch(/second signal: exiting at once/);
    expect(server.output()).not.toMatch(/"msg":"stopped"/);
  });

  it('stops start-up with one line when a configured backend cannot be reached', async () => {
    const failure = await startServer({
      ...env,
      NATURE_READ_MODELS: 'mongodb',
      MONGODB_URL: 'mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=500',
    }).catch((error: Error) => error);
    const lines = String((failure as Error).message)
      .split('\n')
      .filter((line) => line.startsWith('start-up error'));
    expect(lines).toEqual([
      expect.stringMatching(/^start-up error: MongoDB at 127\.0\.0\.1:1 \(MONGODB_URL\) did not answer: .*ECONNREFUSED/),
    ]);
  });

  it('stops start-up on a bad setting with one line naming it', async () => {
    const failure = await startServer({ ...env, NATURE_EVENT_STORE: 'oracle' }).catch((error: Error) => error);
    const output = String((failure as Error).message)
      .replace(/^server exited:\n/, '')
      .trim();
    expect(output).toMatch(/^configuration error: NATURE_EVENT_STORE="oracle" .*sqlite.*eventstoredb/);
    expect(output.split('\n')).toHaveLength(1);
  });
});
