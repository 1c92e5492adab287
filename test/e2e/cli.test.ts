import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, runCliWith, unprivileged } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

const packageVersion = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const mintArgs = ['keys', 'create', '--env', 'test', '--type', 'sk', '--scope', 'nature:read', '--name'];

/** How `nature` reports a failure: its status, one line on stderr (JSON under --json), nothing on stdout, no stack trace. */
function expectFailure(result: { status: number | null; stdout: string; stderr: string }, status: number, line: RegExp): void {
  expect(result.status, result.stderr).toBe(status);
  expect(result.stdout).toBe('');
  expect(result.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(line)]);
  expect(result.stderr).not.toMatch(/\n\s+at /);
}

describe('the nature operator command', () => {
  let dir: ReturnType<typeof tempDir>;
  let data: string;
  beforeEach(() => {
    dir = tempDir();
    data = join(dir.path, 'data');
  });
  afterEach(() => {
    if (existsSync(data)) chmodSync(data, 0o700);
    dir.cleanup();
  });
  const nature = (args: string[], env: Record<string, string> = {}) => runCli(args, { NATURE_DATA_DIR: data, ...env });

  it('prints its version', () => {
    const result = nature(['--version']);
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(packageVersion);
  });

  it('refuses to read a store that is not there, and creates nothing: exit 1', () => {
    for (const args of [['keys', 'list'], ['keys', 'revoke', 'key_01M00000000000000000000000'], ['keys', 'rotate', 'key_01M00000000000000000000000']]) {
      expectFailure(nature(args), 1, /^nature: no key store in .*\/data \(no keys\.db\): is --data-dir \(or NATURE_DATA_DIR\) right\?$/);
    }
    expectFailure(nature(['audit', 'sub_01M00000000000000000000000', '--env', 'live']), 1, /^nature: no production event log in .*\/data \(no production\.events\.db\)/);
    expectFailure(nature(['usage', '--env', 'test']), 1, /^nature: no sandbox event log in .*\/data \(no sandbox\.events\.db\)/);
    expectFailure(nature(['profiles', 'rebuild', '--scoring-version', 'mn76-v2', '--env', 'test']), 1, /^nature: no sandbox event log/);
    expect(existsSync(data)).toBe(false);
  });

  it('starts a new key store when minting the first key, and says so on stderr', () => {
    const first = nature([...mintArgs, 'first']);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^test_sk_\w+\n$/);
    expect(first.stderr).toMatch(/^nature: no key store in .*\/data yet: starting a new one$/m);
    const second = nature([...mintArgs, 'second']);
    expect(second.stderr).not.toMatch(/starting a new one/);
    expect(JSON.parse(nature(['keys', 'list', '--json']).stdout)).toHaveLength(2);
  });

  it('takes --data-dir before NATURE_DATA_DIR, anywhere on the line', () => {
    const other = join(dir.path, 'other');
    expect(runCli(['--data-dir', other, ...mintArgs, 'elsewhere'], { NATURE_DATA_DIR: data }).status).toBe(0);
    expect(existsSync(data)).toBe(false);
    const listed = runCli(['keys', 'list', '--json', '--data-dir', other], { NATURE_DATA_DIR: data });
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ name: 'elsewhere' })]);
    expect(runCli(['keys', 'list'], { NATURE_DATA_DIR: other }).stdout).toContain('elsewhere');
    expectFailure(runCli(['--data-dir', '', 'keys', 'list'], {}), 2, /^nature: option '--data-dir <dir>' argument '' is invalid/);
  });

  it('reads only the settings of the stores: a bad PORT or LOG_LEVEL does not stop it', () => {
    const broken = { PORT: 'http', LOG_LEVEL: 'loud', NATURE_WEBHOOK_RETRY_SCHEDULE: 'soon' };
    expect(nature([...mintArgs, 'ci'], broken).status).toBe(0);
    expect(nature(['keys', 'list'], broken).stdout).toContain('ci');
    expectFailure(nature(['keys', 'list'], { NATURE_EVENT_STORE: 'oracle' }), 1, /^nature: configuration error: NATURE_EVENT_STORE="oracle" /);
  });

  it.each([
    ['empty', '', /A name has 1 to 100 characters/],
    ['blank', '   ', /A name has 1 to 100 characters/],
    ['101 characters', 'x'.repeat(101), /A name has 1 to 100 characters/],
    ['a newline', 'ci\nfake line', /argument 'ci\\nfake line' is invalid\. A name has printable characters only/],
    ['a bidi override', 'ci\u202Etxt', /A name has printable characters only/],
  ])('refuses a name that is %s: exit 2, nothing minted', (_case, name, message) => {
    expectFailure(nature([...mintArgs, name]), 2, message);
    expect(existsSync(data)).toBe(false);
  });

  it('keeps a name of 100 characters, trimmed', () => {
    const minted = nature([...mintArgs, ` ${'é'.repeat(100)} `, '--json']);
    expect(minted.status, minted.stderr).toBe(0);
    expect(JSON.parse(minted.stdout).name).toBe('é'.repeat(100));
  });

  it('refuses nature:write on a pk key: exit 2, nothing minted', () => {
    const result = nature(['keys', 'create', '--env', 'live', '--type', 'pk', '--scope', 'nature:read', '--scope', 'nature:write', '--name', 'widget']);
    expectFailure(result, 2, /^nature: a pk \(publishable\) key cannot have nature:write/);
    expect(existsSync(data)).toBe(false);
  });

  it.each([
    ['an unknown command', ['keys', 'mint'], /^nature: unknown command 'mint'/],
    ['an unknown option', ['keys', 'list', '--all'], /^nature: unknown option '--all'/],
    ['a missing option', ['keys', 'create', '--env', 'test', '--type', 'sk', '--name', 'x'], /^nature: required option '--scope <scope\.\.\.>' not specified$/],
    ['a bad choice', ['audit', 'sub_x', '--env', 'prod'], /^nature: option '--env <env>' argument 'prod' is invalid/],
    ['a bad --from', ['usage', '--env', 'test', '--from', '2026-02-30'], /^nature: from must be a date YYYY-MM-DD/],
  ])('exits 2 for a usage error: %s', (_case, args, line) => {
    expectFailure(nature(args), 2, line);
  });

  it('prints errors as one JSON object under --json, with the same statuses', () => {
    const usage = nature(['keys', 'create', '--env', 'prod', '--type', 'sk', '--scope', 'nature:read', '--name', 'x', '--json']);
    expectFailure(usage, 2, /^\{.*\}$/);
    expect(JSON.parse(usage.stderr)).toEqual({ error: { code: 'usage_error', message: expect.stringMatching(/--env <env>.*prod/) } });
    const missing = nature(['keys', 'list', '--json']);
    expectFailure(missing, 1, /^\{.*\}$/);
    expect(JSON.parse(missing.stderr)).toEqual({ error: { code: 'command_failed', message: expect.stringMatching(/^no key store in .*\/data/) } });
  });

  it('names a damaged key store, and one made read-only, in one line: exit 1', () => {
    mkdirSync(data);
    writeFileSync(join(data, 'keys.db'), 'not a database at all, only some text that is long enough');
    expectFailure(nature(['keys', 'list']), 1, /^nature: .*\/data\/keys\.db is damaged or not a SQLite database \(SQLITE_NOTADB: .*\)/);

    writeFileSync(join(data, 'keys.db'), '');
    expect(nature([...mintArgs, 'ci']).status).toBe(0);
    chmodSync(data, 0o555);
    expectFailure(runCliWith(['keys', 'list'], { NATURE_DATA_DIR: data }, unprivileged), 1, /^nature: the data directory .*\/data is not readable and writable by this user/);
  });
});
