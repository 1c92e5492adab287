import { spawn } from 'node:child_process';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { knownResponses } from '../support/known-answers.js';
import { callServer, type ServerProcess, serverPool } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { validSubject } from '../support/test-app.js';

const root = new URL('../..', import.meta.url).pathname;

/** The rebuild as an operator runs it, beside a running server: killed with SIGKILL half-way, then run again. */
describe('nature profiles rebuild, as its own process', () => {
  let dir: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  let key: string;
  const pool = serverPool(() => env);
  beforeEach(async () => {
    dir = tempDir();
    env = { NATURE_DATA_DIR: dir.path, NATURE_SCORING_VERSION: 'mn76-v1' };
    key = JSON.parse((await runCliInProcess(keyCreateArgs(), env)).stdout).key;
  });
  afterEach(async () => {
    await pool.killAll();
    dir.cleanup();
  });
  const call = (server: ServerProcess, method: string, path: string, body?: unknown) => callServer(server, key, method, path, body);
  /** How many assessments the log says were rescored, read beside the running processes. */
  const rescoredSoFar = () => {
    const db = new Database(join(dir.path, 'sandbox.events.db'), { readonly: true });
    try {
      return (db.prepare("SELECT count(*) AS n FROM events WHERE type = 'ProfileRescored'").get() as { n: number }).n;
    } finally {
      db.close();
    }
  };

  it('resumes after SIGKILL from its checkpoint, rescoring each assessment once, while the server keeps serving', async () => {
    const server = await pool.start();
    const subjects: string[] = [];
    for (let i = 0; i < 60; i++) {
      const subject = (await call(server, 'POST', '/v1/nature/subjects', validSubject())).body;
      const assessment = (await call(server, 'POST', `/v1/nature/subjects/${subject.id}/assessments`, {})).body;
      await call(server, 'PATCH', `/v1/nature/subjects/${subject.id}/assessments/${assessment.id}`, { responses: knownResponses });
      subjects.push(subject.id);
    }
    for (const id of subjects)
      await eventually(async () => ((await call(server, 'GET', `/v1/nature/subjects/${id}/profile`)).status === 200 ? true : undefined));

    // The read models' file is held in a write transaction, so the rebuild stops at its first checkpoint (after 25
    // assessments, in its busy wait): the kill lands there, however fast or slow the machine.
    const hold = new Database(join(dir.path, 'sandbox.read.db'));
    hold.pragma('busy_timeout = 60000');
    hold.exec('BEGIN IMMEDIATE');
    const first = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'profiles', 'rebuild', '--scoring-version', 'mn76-v2', '--env', 'test'],
      {
        cwd: root,
        env: { ...process.env, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    first.stderr!.on('data', (chunk) => (output += chunk));
    const exited = new Promise((resolve) => first.once('exit', (code, signal) => resolve(signal ?? code)));
    await eventually(async () => (rescoredSoFar() >= 25 ? true : undefined), 60_000);
    first.kill('SIGKILL');
    expect(await exited, `the rebuild ended before the kill: ${output}`).toBe('SIGKILL');
    hold.exec('ROLLBACK');
    hold.close();
    const killedAt = rescoredSoFar();
    expect(killedAt).toBe(25);
    // Killed before the switch: the API still serves v1.
    expect((await call(server, 'GET', `/v1/nature/subjects/${subjects[0]}/profile`)).body.scoring_version).toBe('mn76-v1');

    const second = await runCliInProcess(['profiles', 'rebuild', '--scoring-version', 'mn76-v2', '--env', 'test', '--json'], env);
    expect(second.status, second.stderr).toBe(0);
    const summary = JSON.parse(second.stdout);
    expect(summary).toMatchObject({ scoring_version: 'mn76-v2', assessments: 60, changed_profiles: 60, activated: true });
    expect(summary.rescored).toBe(60 - killedAt);
    // Not a terminal: progress comes as plain lines, one phase after the other.
    expect(second.stderr).toMatch(/rescoring .*\| \d+\/60 assessments \| \d+\/s \| ETA/);
    expect(second.stderr).toMatch(/announcing .*\| 60\/60 assessments/);
    expect(rescoredSoFar()).toBe(60);

    for (const id of subjects) {
      await eventually(async () =>
        (await call(server, 'GET', `/v1/nature/subjects/${id}/profile`)).body.scoring_version === 'mn76-v2' ? true : undefined,
      );
    }
    const human = await runCliInProcess(['profiles', 'rebuild', '--scoring-version', 'mn76-v2', '--env', 'test'], env);
    expect(human.stdout).toMatch(
      /profiles rebuilt with mn76-v2: 60 completed assessments, 0 rescored by this run, 60 changed profiles .*already served/,
    );
  });
});
