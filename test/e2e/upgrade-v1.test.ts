import { spawn } from 'node:child_process';
import { cpSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { filesContaining } from '../support/byte-scan.js';
import { eventually } from '../support/eventually.js';
import { callServer, freePort, serverPool } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

/**
 * test/fixtures/data-v1: written by the version before sealed read models and wrapped data keys (its README
 * lists what is in it); data-v1.answers.json: what that version answered on it, byte for byte.
 */
const root = fileURLToPath(new URL('../..', import.meta.url));
const fixture = new URL('../fixtures/data-v1', import.meta.url).pathname;
const answered = JSON.parse(readFileSync(new URL('../fixtures/data-v1.answers.json', import.meta.url), 'utf8')) as Record<
  string,
  { status: number; body: string }
>;
const key = 'test_sk_yYTUOTsGCxvPgk6DQGUyzZYgoWpsvSoS9STv0c5n';
/**
 * The fixture was written on 2026-11-24 at 08:13 UTC, and what it stored expires (its Idempotency-Key's answer after
 * 24 hours, its open assessment after 7 days): its servers run on a clock that starts an hour later, on every day.
 */
const fixtureClock = {
  NODE_OPTIONS:
    `${process.env.NODE_OPTIONS ?? ''} --import=${fileURLToPath(new URL('../support/shifted-clock.mjs', import.meta.url))}`.trim(),
  NATURE_TEST_NOW: '2026-11-24T09:13:10Z',
};
const beta = 'sub_01M869VC4MJGJCFBY0TNKZ85VT';
const markers = [
  'V1-MARKER-ALPHA',
  'V1-COHORT-ALPHA',
  'V1-MARKER-BETA',
  'V1-COHORT-BETA',
  'V1-MARKER-GAMMA',
  'V1-COHORT-GAMMA',
  '"answers":{',
  '"natures":{',
];

/** The raw data keys the old version stored, to show none is left unwrapped. */
function rawDataKeys(dir: string): Buffer[] {
  const db = new Database(join(dir, 'sandbox.data-keys.db'), { readonly: true });
  const keys = db
    .prepare<[], { key: Buffer | null }>('SELECT key FROM data_keys')
    .all()
    .flatMap(({ key }) => (key === null ? [] : [key]));
  db.close();
  return keys;
}

/**
 * Every recorded GET answers as the old version did, byte for byte; a problem's request_id is the request's own,
 * its type, a URN then, is now the URL of its code's entry in the error catalogue, and an assessment has the field
 * added since (result_visible_to_subject, false for an assessment started before it existed) where it now stands, and a
 * profile its quality (null for one scored before it existed).
 */
async function answersAsBefore(url: string): Promise<void> {
  for (const [path, { status, body }] of Object.entries(answered)) {
    const response = await fetch(`${url}${path}`, { headers: { authorization: `Bearer ${key}` } });
    const expected = body
      .replace(/"request_id":"req_\w+"/, `"request_id":"${response.headers.get('request-id')}"`)
      .replace(/"type":"urn:nature:problem:(\w+)"/, `"type":"${url}/docs/errors#$1"`)
      .replace(/("object":"assessment",[^{}]*?"profile_id":(?:null|"prf_\w+"))/g, '$1,"result_visible_to_subject":false')
      // A profile scored before the quality indicators has none until a rebuild (only a profile's status is current or superseded).
      .replace(/,"status":"(current|superseded)"/g, ',"quality":null,"status":"$1"');
    expect({ path, status: response.status, body: await response.text() }).toEqual({ path, status, body: expected });
  }
}

describe('a data directory written before sealed read models and wrapped data keys', () => {
  let dir: ReturnType<typeof tempDir>;
  const pool = serverPool(() => ({ NATURE_DATA_DIR: dir.path, ...fixtureClock }));
  afterEach(async () => {
    await pool.killAll();
    dir.cleanup();
  });

  it('is converted in place on first start, even when that start is killed half-way, and answers as before, byte for byte', async () => {
    dir = tempDir();
    cpSync(fixture, dir.path, { recursive: true, filter: (source) => !source.endsWith('.md') });
    // What the old version left: plain text in the read models, raw keys.
    expect(filesContaining(dir.path, ['V1-MARKER-ALPHA', 'V1-COHORT-BETA', '"answers":{']).map(({ file }) => file)).toContain(
      'sandbox.read.db',
    );
    const oldKeys = rawDataKeys(dir.path);
    expect(oldKeys.length).toBeGreaterThan(1);

    // A first start, killed as soon as it has begun to convert (the master key is its first new file).
    const port = await freePort();
    const first = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
      cwd: root,
      env: { ...process.env, ...fixtureClock, LOG_LEVEL: 'info', NATURE_DATA_DIR: dir.path, PORT: String(port), HOST: '127.0.0.1' },
      stdio: 'ignore',
    });
    const exited = new Promise((resolve) => first.once('exit', resolve));
    await eventually(async () => existsSync(join(dir.path, 'master.key')) || undefined);
    first.kill('SIGKILL');
    await exited;

    const server = await pool.start();
    expect(statSync(join(dir.path, 'master.key')).mode & 0o777).toBe(0o600);
    // The read models are rebuilt from the log; then every answer is what the old version gave.
    const [firstPath] = Object.keys(answered);
    await eventually(
      async () => (await fetch(`${server.url}${firstPath}`, { headers: { authorization: `Bearer ${key}` } })).status === 200 || undefined,
    );
    await answersAsBefore(server.url);
    // The create made with an Idempotency-Key replays its sealed answer.
    const replayed = await fetch(`${server.url}/v1/nature/subjects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': 'fixture-beta-create' },
      body: JSON.stringify({
        external_subject_id: 'V1-MARKER-BETA',
        metadata: { cohort: 'V1-COHORT-BETA' },
        consent: { text_version: 'consent-v3', granted_at: '2026-11-20T09:30:00Z', ui_hash: `sha256:${'9'.repeat(64)}` },
      }),
    });
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(await replayed.text()).toBe(answered[`/v1/nature/subjects/${beta}`]!.body);
    expect((await callServer(server, key, 'GET', `/v1/nature/subjects/${beta}/assessments`)).body.data[0]).toMatchObject({
      responses_received: 19,
    });

    // Nothing personal and no raw key is left in any file, running or stopped.
    expect(filesContaining(dir.path, [...markers, ...oldKeys])).toEqual([]);
    await pool.kill(server);
    expect(filesContaining(dir.path, [...markers, ...oldKeys])).toEqual([]);

    // A second start finds everything converted and answers the same.
    const again = await pool.start();
    await eventually(
      async () => (await fetch(`${again.url}${firstPath}`, { headers: { authorization: `Bearer ${key}` } })).status === 200 || undefined,
    );
    await answersAsBefore(again.url);
  });
});
