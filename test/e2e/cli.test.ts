import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MongoDBContainer } from '@testcontainers/mongodb';
import { MongoClient } from 'mongodb';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { KEYS_DATABASE } from '../../src/adapters/mongodb/key-store.js';
import { SqliteKeyStore } from '../../src/adapters/sqlite/key-store.js';
import { mintKey } from '../../src/domain/api-keys.js';
import { serverTarget } from '../support/backend-servers.js';
import { expectFailure, runCliInProcess } from '../support/cli.js';
import { freePort, runCliProcess, runCliWith, runServerToExit, unprivileged } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { auth, openTestApp, validSubject } from '../support/test-app.js';

const packageVersion = (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
const mintArgs = ['keys', 'create', '--env', 'test', '--type', 'sk', '--scope', 'nature:read', '--name'];

/** How `nature` reports a failure: its status, one line on stderr (JSON under --json), nothing on stdout, no stack trace. */
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
  // The command's logic runs in this process; what only the real process shows (that it starts, its exit
  // codes, its user's permissions) is checked by starting it.
  const nature = (args: string[], env: Record<string, string> = {}) => runCliInProcess(args, { NATURE_DATA_DIR: data, ...env });
  const natureProcess = (args: string[]) => runCliProcess(args, { NATURE_DATA_DIR: data });

  it('prints its version', () => {
    const result = natureProcess(['--version']);
    expect(result.status).toBe(0);
    expect(result.stdout.trim()).toBe(packageVersion);
  });

  it('lists every command under --help, each with its synopsis, what it does and an example', async () => {
    const result = await nature(['--help']);
    expect(result.status).toBe(0);
    expect(result.stderr).toBe('');
    const lines = result.stdout.split('\n');
    const listed = lines.flatMap((line, index) => {
      const command =
        /^ {2}nature ((?:keys |users |applications |account plan |profiles |situational |usage |logs |master-key |careers )?[a-z]+(?:-[a-z]+)*)\b/.exec(
          line,
        )?.[1];
      return command === undefined ? [] : [{ command, description: lines[index + 1]!, example: lines[index + 2]! }];
    });
    expect(listed.map((entry) => entry.command)).toEqual([
      'keys create',
      'keys list',
      'keys show',
      'keys rotate',
      'keys revoke',
      'keys import',
      'users create',
      'users list',
      'users reset',
      'users roles',
      'users disable-two-factor',
      'applications list',
      'applications show',
      'applications approve',
      'applications reject',
      'account plan set',
      'account plan show',
      'profiles rebuild',
      'audit',
      'situational rebuild',
      'usage',
      'usage statement',
      'logs tail',
      'master-key rotate',
      'careers import',
      'careers status',
      'listen',
      'trigger',
      'mcp',
    ]);
    for (const { command, description, example } of listed) {
      expect(description, command).toMatch(/^ {6}[a-z]/);
      expect(example, command).toMatch(new RegExp(`^ {6}\\$ (\\S+=\\S+ )*nature ${command}\\b`));
    }
    expect((await nature(['keys', 'show', '--help'])).stdout).toMatch(/Example:\n {2}\$ nature keys show key_/);
  });

  it("shows one key's details, never the raw key or its hash; --json too", async () => {
    const minted = JSON.parse((await nature([...mintArgs, 'reporting job', '--json'])).stdout) as { id: string; key: string };
    const hash = createHash('sha256').update(minted.key).digest('hex');
    const shown = await nature(['keys', 'show', minted.id]);
    expect(shown.status, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(new RegExp(`^id +${minted.id}$`, 'm'));
    expect(shown.stdout).toMatch(/^name +reporting job$/m);
    expect(shown.stdout).toMatch(new RegExp(`^key +test_sk_…${minted.key.slice(-4)}$`, 'm'));
    expect(shown.stdout).toMatch(/^environment +test \(sandbox\)$/m);
    expect(shown.stdout).toMatch(/^scopes +nature:read$/m);
    expect(shown.stdout).toMatch(/^status +active$/m);
    for (const output of [shown.stdout, (await nature(['keys', 'show', minted.id, '--json'])).stdout]) {
      expect(output).not.toContain(minted.key);
      expect(output).not.toContain(minted.key.slice(8, -4));
      expect(output).not.toContain(hash);
    }

    const rotated = JSON.parse((await nature(['keys', 'rotate', minted.id, '--json'])).stdout) as { id: string };
    expect(JSON.parse((await nature(['keys', 'show', minted.id, '--json'])).stdout)).toEqual({
      id: minted.id,
      name: 'reporting job',
      environment: 'test',
      type: 'sk',
      scopes: ['nature:read'],
      ends_with: minted.key.slice(-4),
      status: 'rotated',
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      revoked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      rotated_from: null,
      origins: [],
      last_used_at: null,
      rotated_to: rotated.id,
    });
    expect((await nature(['keys', 'show', rotated.id])).stdout).toMatch(new RegExp(`^rotated_from +${minted.id}$`, 'm'));

    expectFailure(await nature(['keys', 'show', 'key_01M00000000000000000000000']), 1, /^nature: no key key_01M00000000000000000000000$/);
    const missing = await nature(['keys', 'show', 'key_01M00000000000000000000000', '--json']);
    expect(JSON.parse(missing.stderr)).toEqual({ error: { code: 'command_failed', message: 'no key key_01M00000000000000000000000' } });
  });

  it('lists keys under a header line, in aligned columns', async () => {
    const first = JSON.parse((await nature([...mintArgs, 'first', '--json'])).stdout) as { id: string; key: string };
    const second = JSON.parse(
      (await nature(['keys', 'create', '--env', 'live', '--type', 'pk', '--scope', 'nature:read', '--name', 'widget', '--json'])).stdout,
    ) as { id: string; key: string };
    expect((await nature(['keys', 'revoke', second.id])).status).toBe(0);
    const result = await nature(['keys', 'list']);
    expect(result.status, result.stderr).toBe(0);
    const [header, ...rows] = result.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID +KEY +STATUS +SCOPES +CREATED +LAST USED +ORIGINS +NAME$/);
    expect(rows).toEqual([
      expect.stringMatching(new RegExp(`^${first.id} +test_sk_…${first.key.slice(-4)} +active +nature:read +\\S+ +never +\\* +first$`)),
      expect.stringMatching(new RegExp(`^${second.id} +live_pk_…${second.key.slice(-4)} +revoked +nature:read +\\S+ +never +\\* +widget$`)),
    ]);
    // Every column starts where its heading does.
    for (const heading of ['KEY', 'STATUS', 'SCOPES', 'CREATED', 'LAST USED', 'ORIGINS', 'NAME']) {
      const column = header!.indexOf(heading);
      for (const row of rows) expect(row[column - 1], heading).toBe(' ');
      for (const row of rows) expect(row[column], heading).not.toBe(' ');
    }
  });

  it('prints one JSON document on stdout under --json, for every command', async () => {
    const t = await openTestApp({ NATURE_DATA_DIR: data });
    let subjectId: string;
    try {
      const { raw } = await t.mint('test', 'sk');
      const created = await t.app.inject({ method: 'POST', url: '/v1/nature/subjects', headers: auth(raw), payload: validSubject() });
      expect(created.statusCode).toBe(201);
      subjectId = created.json().id;
    } finally {
      await t.stop();
    }
    const key = JSON.parse((await nature([...mintArgs, 'json', '--json'])).stdout) as { id: string };
    const runs: [string[], (value: unknown) => void][] = [
      [['keys', 'list'], (value) => expect(value).toEqual(expect.arrayContaining([expect.objectContaining({ id: key.id })]))],
      [['keys', 'show', key.id], (value) => expect(value).toMatchObject({ id: key.id, status: 'active' })],
      [
        ['audit', subjectId, '--env', 'test'],
        (value) =>
          expect(value).toMatchObject({
            subject_id: subjectId,
            data: expect.arrayContaining([expect.objectContaining({ type: 'subject.created' })]),
          }),
      ],
      [['usage', '--env', 'test'], (value) => expect(value).toMatchObject({ object: 'usage', total_completed_assessments: 0 })],
      [
        ['profiles', 'rebuild', '--scoring-version', 'mn76-v2', '--env', 'test'],
        (value) => expect(value).toMatchObject({ scoring_version: 'mn76-v2', assessments: 0 }),
      ],
      [
        ['keys', 'rotate', key.id],
        (value) => expect(value).toMatchObject({ rotated_from: key.id, key: expect.stringMatching(/^test_sk_/) }),
      ],
      [
        ['keys', 'create', '--env', 'live', '--type', 'pk', '--scope', 'nature:read', '--name', 'x'],
        (value) => expect(value).toMatchObject({ environment: 'live', type: 'pk' }),
      ],
    ];
    for (const [args, check] of runs) {
      const result = await nature([...args, '--json']);
      expect(result.status, `${args.join(' ')}: ${result.stderr}`).toBe(0);
      check(JSON.parse(result.stdout));
    }
    const listed = JSON.parse((await nature(['keys', 'list', '--json'])).stdout) as { id: string; status: string }[];
    const active = listed.find((entry) => entry.status === 'active' && entry.id !== key.id)!;
    expect(JSON.parse((await nature(['keys', 'revoke', active.id, '--json'])).stdout)).toMatchObject({ id: active.id, status: 'revoked' });
  });

  it('refuses to read a store that is not there, and creates nothing: exit 1', async () => {
    for (const args of [
      ['keys', 'list'],
      ['keys', 'revoke', 'key_01M00000000000000000000000'],
      ['keys', 'rotate', 'key_01M00000000000000000000000'],
    ]) {
      expectFailure(
        await nature(args),
        1,
        /^nature: no key store in .*\/data \(no keys\.db\): is --data-dir \(or NATURE_DATA_DIR\) right\?$/,
      );
    }
    expectFailure(
      await nature(['audit', 'sub_01M00000000000000000000000', '--env', 'live']),
      1,
      /^nature: no production event log in .*\/data \(no production\.events\.db\)/,
    );
    expectFailure(await nature(['usage', '--env', 'test']), 1, /^nature: no sandbox event log in .*\/data \(no sandbox\.events\.db\)/);
    expectFailure(
      await nature(['profiles', 'rebuild', '--scoring-version', 'mn76-v2', '--env', 'test']),
      1,
      /^nature: no sandbox event log/,
    );
    expect(existsSync(data)).toBe(false);
  });

  it('starts a new key store when minting the first key, and says so on stderr', async () => {
    const first = await nature([...mintArgs, 'first']);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toMatch(/^test_sk_\w+\n$/);
    expect(first.stderr).toMatch(/^nature: no key store in .*\/data yet: starting a new one$/m);
    const second = await nature([...mintArgs, 'second']);
    expect(second.stderr).not.toMatch(/starting a new one/);
    expect(JSON.parse((await nature(['keys', 'list', '--json'])).stdout)).toHaveLength(2);
  });

  it('takes --data-dir before NATURE_DATA_DIR, anywhere on the line', async () => {
    const other = join(dir.path, 'other');
    expect((await runCliInProcess(['--data-dir', other, ...mintArgs, 'elsewhere'], { NATURE_DATA_DIR: data })).status).toBe(0);
    expect(existsSync(data)).toBe(false);
    const listed = await runCliInProcess(['keys', 'list', '--json', '--data-dir', other], { NATURE_DATA_DIR: data });
    expect(JSON.parse(listed.stdout)).toEqual([expect.objectContaining({ name: 'elsewhere' })]);
    expect((await runCliInProcess(['keys', 'list'], { NATURE_DATA_DIR: other })).stdout).toContain('elsewhere');
    expectFailure(
      await runCliInProcess(['--data-dir', '', 'keys', 'list'], {}),
      2,
      /^nature: option '--data-dir <dir>' argument '' is invalid/,
    );
  });

  it('reads only the settings of the stores: a bad PORT or LOG_LEVEL does not stop it', async () => {
    const broken = { PORT: 'http', LOG_LEVEL: 'loud', NATURE_WEBHOOK_RETRY_SCHEDULE: 'soon' };
    expect((await nature([...mintArgs, 'ci'], broken)).status).toBe(0);
    expect((await nature(['keys', 'list'], broken)).stdout).toContain('ci');
    expectFailure(
      await nature(['keys', 'list'], { NATURE_EVENT_STORE: 'oracle' }),
      1,
      /^nature: configuration error: NATURE_EVENT_STORE="oracle" /,
    );
  });

  it.each([
    ['empty', '', /A name has 1 to 100 characters/],
    ['blank', '   ', /A name has 1 to 100 characters/],
    ['101 characters', 'x'.repeat(101), /A name has 1 to 100 characters/],
    ['a newline', 'ci\nfake line', /argument 'ci\\nfake line' is invalid\. A name has printable characters only/],
    ['a bidi override', 'ci\u202Etxt', /A name has printable characters only, on one line \(U\+202E is not\)/],
    ['a line separator', 'ci\u2028fake line', /A name has printable characters only, on one line \(U\+2028 is not\)/],
    ['a paragraph separator', 'ci\u2029fake line', /\(U\+2029 is not\)/],
    ['only an invisible Hangul filler', '\u3164', /\(U\+3164 is not\)/],
    ['a zero-width space', 'c\u200Bi', /\(U\+200B is not\)/],
  ])('refuses a name that is %s: exit 2, nothing minted', async (_case, name, message) => {
    expectFailure(await nature([...mintArgs, name]), 2, message);
    expect(existsSync(data)).toBe(false);
  });

  it('lists a name stored before the rule with its invisible characters escaped: it cannot reorder or hide a line', async () => {
    expect((await nature([...mintArgs, 'first'])).status).toBe(0);
    // As a version that took any name but controls would have stored it.
    const store = new SqliteKeyStore(join(data, 'keys.db'), 'FULL');
    const { record } = mintKey(
      { environment: 'test', type: 'sk', scopes: ['nature:read'], name: 'ops\u202Etxt.exe\u2028forged\u3164' },
      new Date(),
    );
    await store.insert(record);
    await store.close();
    const list = await nature(['keys', 'list']);
    expect(list.stdout).toContain('ops\\u202etxt.exe\\u2028forged\\u3164');
    expect(list.stdout).not.toMatch(/[\u202E\u2028\u3164]/);
    expect(list.stdout.trimEnd().split('\n')).toHaveLength(3);
    const json = await nature(['keys', 'list', '--json']);
    expect(JSON.parse(json.stdout).map((key: { name: string }) => key.name)).toContain('ops\u202Etxt.exe\u2028forged\u3164');
  });

  it('keeps a name of 100 characters, trimmed', async () => {
    const minted = await nature([...mintArgs, ` ${'é'.repeat(100)} `, '--json']);
    expect(minted.status, minted.stderr).toBe(0);
    expect(JSON.parse(minted.stdout).name).toBe('é'.repeat(100));
  });

  it('mints a pk key with allowed origins (repeatable), shows them, and refuses an origin with a path or on an sk key', async () => {
    const minted = await nature([
      'keys',
      'create',
      '--env',
      'test',
      '--type',
      'pk',
      '--scope',
      'nature:read',
      '--name',
      'widget',
      '--origin',
      'https://App.example.com',
      '--origin',
      'http://localhost:5173',
      '--json',
    ]);
    expect(minted.status, minted.stderr).toBe(0);
    const { id } = JSON.parse(minted.stdout) as { id: string };
    expect(JSON.parse((await nature(['keys', 'show', id, '--json'])).stdout).origins).toEqual([
      'https://app.example.com',
      'http://localhost:5173',
    ]);
    expect((await nature(['keys', 'show', id])).stdout).toMatch(/^origins +https:\/\/app\.example\.com, http:\/\/localhost:5173$/m);
    expect((await nature(['keys', 'list'])).stdout).toMatch(
      new RegExp(`^${id} .* https://app\\.example\\.com,http://localhost:5173 +widget$`, 'm'),
    );
    for (const origin of [
      'https://app.example.com/',
      'https://app.example.com/embed',
      'app.example.com',
      'ftp://app.example.com',
      'https://*.example.com',
      '*',
    ]) {
      expectFailure(
        await nature(['keys', 'create', '--env', 'test', '--type', 'pk', '--scope', 'nature:read', '--name', 'w', '--origin', origin]),
        2,
        /^nature: option '--origin <origin>' argument .* is invalid\. An origin is scheme:\/\/host\[:port\]/,
      );
    }
    expectFailure(
      await nature([...mintArgs, 'server', '--origin', 'https://app.example.com']),
      2,
      /^nature: --origin is for pk \(publishable\) keys only/,
    );
    expect(JSON.parse((await nature(['keys', 'list', '--json'])).stdout)).toHaveLength(1);
  });

  it('refuses nature:write on a pk key: exit 2, nothing minted', async () => {
    const result = await nature([
      'keys',
      'create',
      '--env',
      'live',
      '--type',
      'pk',
      '--scope',
      'nature:read',
      '--scope',
      'nature:write',
      '--name',
      'widget',
    ]);
    expectFailure(result, 2, /^nature: a pk \(publishable\) key cannot have nature:write/);
    expect(existsSync(data)).toBe(false);
  });

  it.each([
    ['an unknown command', ['keys', 'mint'], /^nature: unknown command 'mint'/],
    ['an unknown option', ['keys', 'list', '--all'], /^nature: unknown option '--all'/],
    [
      'a missing option',
      ['keys', 'create', '--env', 'test', '--type', 'sk', '--name', 'x'],
      /^nature: required option '--scope <scope\.\.\.>' not specified$/,
    ],
    ['a bad choice', ['audit', 'sub_x', '--env', 'prod'], /^nature: option '--env <env>' argument 'prod' is invalid/],
    ['a bad --from', ['usage', '--env', 'test', '--from', '2026-02-30'], /^nature: from must be a date YYYY-MM-DD/],
  ])('exits 2 for a usage error: %s', async (_case, args, line) => {
    expectFailure(await nature(args), 2, line);
  });

  it('prints errors as one JSON object under --json, with the same statuses as its exit codes', () => {
    const usage = natureProcess(['keys', 'create', '--env', 'prod', '--type', 'sk', '--scope', 'nature:read', '--name', 'x', '--json']);
    expectFailure(usage, 2, /^\{.*\}$/);
    expect(JSON.parse(usage.stderr)).toEqual({ error: { code: 'usage_error', message: expect.stringMatching(/--env <env>.*prod/) } });
    const missing = natureProcess(['keys', 'list', '--json']);
    expectFailure(missing, 1, /^\{.*\}$/);
    expect(JSON.parse(missing.stderr)).toEqual({
      error: { code: 'command_failed', message: expect.stringMatching(/^no key store in .*\/data/) },
    });
  });

  it('has nothing to import while the keys are kept in keys.db itself: exit 1', async () => {
    expect((await nature([...mintArgs, 'ci'])).status).toBe(0);
    expectFailure(
      await nature(['keys', 'import']),
      1,
      /^nature: the keys are kept in keys\.db itself \(NATURE_READ_MODELS is neither mongodb nor postgres\): there is nothing to import$/,
    );
  });

  it('names a backend server that does not answer, in one line, without its password: exit 1', async () => {
    const bounded = { NATURE_BACKEND_TIMEOUT_MS: '2000' };
    const mongo = await freePort();
    const keys = await nature(['keys', 'list'], {
      ...bounded,
      NATURE_READ_MODELS: 'mongodb',
      MONGODB_URL: `mongodb://ops:s3cret-pw@127.0.0.1:${mongo}/`,
    });
    expectFailure(keys, 1, new RegExp(`^nature: MongoDB at 127\\.0\\.0\\.1:${mongo} \\(MONGODB_URL\\) did not answer`));
    expect(keys.stderr).not.toContain('s3cret-pw');
    const eventStore = await freePort();
    expectFailure(
      // The audit reads the log (usage reads only the read models, so it works through an EventStoreDB outage).
      await nature(['audit', 'sub_01M00000000000000000000000', '--env', 'test'], {
        ...bounded,
        NATURE_EVENT_STORE: 'eventstoredb',
        EVENTSTORE_URL: `esdb://127.0.0.1:${eventStore}?tls=false`,
      }),
      1,
      new RegExp(`^nature: EventStoreDB at 127\\.0\\.0\\.1:${eventStore} \\(EVENTSTORE_URL\\) did not answer`),
    );
  });

  it('refuses to report usage from read models no server of this version has opened, instead of resetting them or answering zero', async () => {
    mkdirSync(data);
    writeFileSync(join(data, 'sandbox.events.db'), '');
    expectFailure(
      await nature(['usage', '--env', 'test']),
      1,
      /^nature: the test environment's read models were never opened by a server of this version: start the server on them once/,
    );
  });

  it('names a damaged key store, and one made read-only, in one line: exit 1', async () => {
    mkdirSync(data);
    writeFileSync(join(data, 'keys.db'), 'not a database at all, only some text that is long enough');
    expectFailure(
      await nature(['keys', 'list']),
      1,
      /^nature: .*\/data\/keys\.db is damaged or not a SQLite database \(SQLITE_NOTADB: .*\)/,
    );

    writeFileSync(join(data, 'keys.db'), '');
    expect((await nature([...mintArgs, 'ci'])).status).toBe(0);
    chmodSync(data, 0o555);
    expectFailure(
      runCliWith(['keys', 'list'], { NATURE_DATA_DIR: data }, unprivileged),
      1,
      /^nature: the data directory .*\/data is not readable and writable by this user/,
    );
  });
});

const mongo = await serverTarget('MongoDB', 'MONGODB_URL', async () => {
  const container = await new MongoDBContainer('mongo:8.0.13').start();
  return { url: `${container.getConnectionString()}?directConnection=true`, container };
});
afterAll(async () => {
  if (mongo.url !== undefined) await mongo.stop();
});

describe.skipIf(mongo.url === undefined)('API keys on MongoDB (NATURE_READ_MODELS=mongodb)', () => {
  let dir: ReturnType<typeof tempDir>;
  let data: string;
  beforeEach(async () => {
    dir = tempDir();
    data = join(dir.path, 'data');
    const client = await new MongoClient(mongo.url!).connect();
    await client.db(KEYS_DATABASE).dropDatabase();
    await client.close();
  });
  afterEach(() => dir.cleanup());
  const onMongo = () => ({ NATURE_DATA_DIR: data, NATURE_READ_MODELS: 'mongodb', MONGODB_URL: mongo.url! });
  const listed = async (env: Record<string, string>) =>
    JSON.parse((await runCliInProcess(['keys', 'list', '--json'], env)).stdout) as { id: string; status: string }[];

  it('mints, lists, rotates and revokes keys in MongoDB, writing nothing in the data directory', async () => {
    const created = await runCliInProcess([...mintArgs, 'backend', '--json'], onMongo());
    expect(created.status, created.stderr).toBe(0);
    const { id } = JSON.parse(created.stdout) as { id: string };
    expect(existsSync(join(data, 'keys.db'))).toBe(false);
    const rotated = await runCliInProcess(['keys', 'rotate', id, '--json'], onMongo());
    expect(rotated.status, rotated.stderr).toBe(0);
    const replacement = (JSON.parse(rotated.stdout) as { id: string }).id;
    expect((await runCliInProcess(['keys', 'revoke', replacement], onMongo())).status).toBe(0);
    expect(await listed(onMongo())).toEqual([
      expect.objectContaining({ id, status: 'rotated' }),
      expect.objectContaining({ id: replacement, status: 'revoked' }),
    ]);
  });

  it('imports the keys of keys.db once, as they stand; the server refuses to start until then', async () => {
    const sqlite = { NATURE_DATA_DIR: data };
    const kept = JSON.parse((await runCliInProcess([...mintArgs, 'kept', '--json'], sqlite)).stdout) as { id: string; key: string };
    const revoked = JSON.parse((await runCliInProcess([...mintArgs, 'revoked', '--json'], sqlite)).stdout) as { id: string };
    expect((await runCliInProcess(['keys', 'revoke', revoked.id], sqlite)).status).toBe(0);

    const port = String(await freePort());
    const refused = runServerToExit({ ...onMongo(), PORT: port });
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim()).toMatch(
      /^start-up error: .*\/data\/keys\.db holds 2 API key\(s\) that are not in MongoDB.*run "nature keys import" once/,
    );

    const imported = await runCliInProcess(['keys', 'import', '--json'], onMongo());
    expect(imported.status, imported.stderr).toBe(0);
    expect(JSON.parse(imported.stdout)).toEqual({ imported: [kept.id, revoked.id].sort(), already_there: 0 });
    expect(imported.stderr).toMatch(/keys\.db is no longer read; remove it/);
    expect(JSON.parse((await runCliInProcess(['keys', 'import', '--json'], onMongo())).stdout)).toEqual({ imported: [], already_there: 2 });
    expect(await listed(onMongo())).toEqual([
      expect.objectContaining({ id: kept.id, status: 'active' }),
      expect.objectContaining({ id: revoked.id, status: 'revoked' }),
    ]);
  });
});
