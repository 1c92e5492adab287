import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteAccountStore } from '../../src/adapters/sqlite/account-store.js';
import { SqliteKeyStore } from '../../src/adapters/sqlite/key-store.js';
import { submitApplication } from '../../src/commands/accounts.js';
import { ACCOUNT_ID, passwordMatches, tokenHash } from '../../src/domain/accounts.js';
import { filesContaining } from '../support/byte-scan.js';
import { expectFailure, keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { killedAsItWrites } from '../support/kill-on-write.js';
import { runCliProcess } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

const PASSWORD = 'correct horse battery staple';

/** How `nature` reports a failure: its status, one line on stderr, nothing on stdout, no stack trace. */
/** The token of a set-up link printed alone on stdout. */
function linkToken(stdout: string, base = 'http://127.0.0.1:8080'): string {
  const escaped = base.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const match = new RegExp(`^${escaped}/dashboard/setup\\?token=([A-Za-z0-9_-]{43})\\n$`).exec(stdout);
  expect(match, stdout).not.toBeNull();
  return match![1]!;
}

describe('nature users and nature applications', () => {
  let dir: ReturnType<typeof tempDir>;
  let data: string;
  const opened: SqliteAccountStore[] = [];
  beforeEach(() => {
    dir = tempDir();
    data = join(dir.path, 'data');
  });
  afterEach(async () => {
    for (const store of opened.splice(0)) await store.close();
    dir.cleanup();
  });
  const nature = (args: string[], env: Record<string, string> = {}, stdin?: string) =>
    runCliInProcess(args, { NATURE_DATA_DIR: data, ...env }, stdin);
  /** The account's store in keys.db, as the server opens it beside the command. */
  const accounts = () => {
    const store = new SqliteAccountStore(join(data, 'keys.db'), 'FULL');
    opened.push(store);
    return store;
  };
  const listed = async () =>
    JSON.parse((await nature(['users', 'list', '--json'])).stdout) as { id: string; email: string; password_set: boolean }[];

  describe('users create', () => {
    it('takes the password from standard input (one trailing line break is not part of it), printing no link', async () => {
      const created = await nature(['users', 'create', '--email', 'Ana@Example.com', '--password-stdin'], {}, `${PASSWORD}\n`);
      expect(created.status, created.stderr).toBe(0);
      expect(created.stdout).toMatch(/^usr_\w{26} created: ana@example\.com, owner of acct_default, with the password given\n$/);
      expect(created.stdout).not.toContain('/dashboard/setup');
      const [user] = await accounts().users();
      expect(user).toMatchObject({ role: 'owner', setup_token_hash: null, setup_expires_at: null });
      expect(await passwordMatches(PASSWORD, user!.password_hash!)).toBe(true);
      expect(await listed()).toEqual([expect.objectContaining({ id: user!.id, email: 'ana@example.com', password_set: true })]);
    });

    it('reads a password piped into the real process, and ends once it has', () => {
      const created = runCliProcess(
        ['users', 'create', '--email', 'ana@example.com', '--password-stdin'],
        { NATURE_DATA_DIR: data },
        `${PASSWORD}\r\n`,
      );
      expect(created.status, created.stderr).toBe(0);
      expect(created.stdout).toMatch(/^usr_\w+ created: ana@example\.com/);
      const listedByProcess = runCliProcess(['users', 'list', '--json'], { NATURE_DATA_DIR: data });
      expect(JSON.parse(listedByProcess.stdout)).toEqual([expect.objectContaining({ email: 'ana@example.com', password_set: true })]);
    });

    it('answers JSON with the user and no link', async () => {
      const created = await nature(['users', 'create', '--email', 'ana@example.com', '--password-stdin', '--json'], {}, PASSWORD);
      expect(created.status, created.stderr).toBe(0);
      expect(JSON.parse(created.stdout)).toEqual({
        id: expect.stringMatching(/^usr_/),
        email: 'ana@example.com',
        account_id: ACCOUNT_ID,
        role: 'owner',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        password_set: true,
        setup_link_expires_at: null,
        setup_link: null,
      });
    });

    it('refuses a password the rules refuse, or no standard input at all, in one line, creating nothing', async () => {
      expectFailure(
        await nature(['users', 'create', '--email', 'ana@example.com', '--password-stdin'], {}, 'too short\n'),
        2,
        /^nature: the password on standard input is refused: A password has at least 12 characters\.$/,
      );
      expectFailure(
        await nature(['users', 'create', '--email', 'ana@example.com', '--password-stdin'], {}, 'x'.repeat(9000)),
        2,
        /^nature: standard input holds more than a password/,
      );
      expectFailure(
        await nature(['users', 'create', '--email', 'ana@example.com', '--password-stdin']),
        1,
        /^nature: no standard input to read the password from$/,
      );
      expect(existsSync(data)).toBe(false);
    });

    it('prints a one-time set-up link once, alone on stdout, saying on stderr that it works once, for 72 hours', async () => {
      const created = await nature(['users', 'create', '--email', 'ana@example.com']);
      expect(created.status, created.stderr).toBe(0);
      const token = linkToken(created.stdout);
      expect(created.stderr).toMatch(/works once, for 72 hours/);
      expect(created.stderr).not.toContain(token);
      const [user] = await accounts().users();
      expect(user).toMatchObject({ password_hash: null, setup_token_hash: tokenHash(token) });
      expect(Date.parse(user!.setup_expires_at!) - Date.parse(user!.created_at)).toBe(72 * 3600 * 1000);
      // Only its hash is kept: the link cannot be printed again, from the store or by the command.
      expect(filesContaining(data, [token])).toEqual([]);
      expect((await nature(['users', 'list'])).stdout).not.toContain(token);
      expect(JSON.stringify(await listed())).not.toContain(token);
    });

    it('points the link at NATURE_PUBLIC_URL, else at 127.0.0.1 on PORT; a bad setting fails before anyone is created', async () => {
      const publicUrl = await nature(['users', 'create', '--email', 'a@example.com'], { NATURE_PUBLIC_URL: 'https://nature.example.com/' });
      linkToken(publicUrl.stdout, 'https://nature.example.com');
      const port = await nature(['users', 'create', '--email', 'b@example.com'], { PORT: '9090' });
      linkToken(port.stdout, 'http://127.0.0.1:9090');
      const json = await nature(['users', 'create', '--email', 'c@example.com', '--json'], { PORT: '9090' });
      expect(JSON.parse(json.stdout)).toMatchObject({
        email: 'c@example.com',
        password_set: false,
        setup_link: expect.stringMatching(/^http:\/\/127\.0\.0\.1:9090\/dashboard\/setup\?token=[\w-]{43}$/),
        setup_link_expires_at: expect.stringMatching(/^\d{4}-/),
      });
      expectFailure(
        await nature(['users', 'create', '--email', 'd@example.com'], { NATURE_PUBLIC_URL: 'https://nature.example.com/dashboard' }),
        1,
        /^nature: configuration error: NATURE_PUBLIC_URL=/,
      );
      expectFailure(
        await nature(['users', 'create', '--email', 'd@example.com'], { PORT: 'http' }),
        1,
        /^nature: configuration error: PORT=/,
      );
      expect((await listed()).map((user) => user.email)).toEqual(['a@example.com', 'b@example.com', 'c@example.com']);
    });

    it('refuses a second user with the same address, in any case, in one line', async () => {
      expect((await nature(['users', 'create', '--email', 'ana@example.com'])).status).toBe(0);
      for (const email of ['ana@example.com', ' ANA@Example.com']) {
        expectFailure(
          await nature(['users', 'create', '--email', email, '--password-stdin'], {}, PASSWORD),
          1,
          /^nature: a user with ana@example\.com exists already: nature users reset --email ana@example\.com gives them a new set-up link$/,
        );
      }
      expect(await listed()).toHaveLength(1);
    });

    it.each([
      ['no @', 'ana.example.com'],
      ['no dot in the domain', 'ana@example'],
      ['a space', 'ana lima@example.com'],
      ['two @', 'ana@@example.com'],
      ['nothing', ''],
    ])('refuses an address with %s: exit 2, nothing created', async (_case, email) => {
      expectFailure(
        await nature(['users', 'create', '--email', email]),
        2,
        /^nature: option '--email <email>' argument .* is invalid\. An e-mail address is name@domain\.tld, without spaces\.$/,
      );
      expect(existsSync(data)).toBe(false);
    });
  });

  describe('users list', () => {
    it('shows each address, opened with its data key, while no file of the data directory holds it in plain text', async () => {
      expect((await nature(['users', 'create', '--email', 'Ana.Lima@Example.com'])).status).toBe(0);
      expect((await nature(['users', 'create', '--email', 'bob@example.org', '--password-stdin'], {}, PASSWORD)).status).toBe(0);
      const result = await nature(['users', 'list']);
      expect(result.status, result.stderr).toBe(0);
      const [header, ...rows] = result.stdout.trimEnd().split('\n');
      expect(header).toMatch(/^ID +EMAIL +ROLE +CREATED +PASSWORD$/);
      expect(rows).toEqual([
        expect.stringMatching(/^usr_\w{26} +ana\.lima@example\.com +owner +\d{4}-\S+ +no$/),
        expect.stringMatching(/^usr_\w{26} +bob@example\.org +owner +\d{4}-\S+ +yes$/),
      ]);
      expect(await listed()).toEqual([
        expect.objectContaining({ email: 'ana.lima@example.com', password_set: false }),
        expect.objectContaining({ email: 'bob@example.org', password_set: true }),
      ]);
      // keys.db (its WAL too), the data keys and the master key: the address is nowhere in the clear.
      expect(existsSync(join(data, 'keys.db'))).toBe(true);
      expect(filesContaining(data, ['ana.lima@example.com', 'Ana.Lima@Example.com', 'bob@example.org', 'ana.lima', 'bob@'])).toEqual([]);
    });

    it('says there is nobody yet in a store without users, and fails in one line where there is no store', async () => {
      expectFailure(await nature(['users', 'list']), 1, /^nature: no key store in .*\/data \(no keys\.db\): is --data-dir/);
      expect(existsSync(data)).toBe(false);
      expect((await nature(keyCreateArgs())).status).toBe(0);
      const empty = await nature(['users', 'list']);
      expect(empty.status).toBe(0);
      expect(empty.stdout).toMatch(/^ID +EMAIL +ROLE +CREATED +PASSWORD\n$/);
      expect(empty.stderr).toBe('nature: no users yet: add one with nature users create --email EMAIL\n');
      expect(JSON.parse((await nature(['users', 'list', '--json'])).stdout)).toEqual([]);
    });
  });

  describe('users reset', () => {
    it('prints a new set-up link once (the old one stops working) and ends every session of that user only', async () => {
      const first = linkToken((await nature(['users', 'create', '--email', 'ana@example.com'])).stdout);
      expect((await nature(['users', 'create', '--email', 'bob@example.com', '--password-stdin'], {}, PASSWORD)).status).toBe(0);
      const store = accounts();
      const [ana, bob] = await store.users();
      const session = (idHash: string, userId: string) => ({
        id_hash: idHash,
        user_id: userId,
        created_at: new Date().toISOString(),
        last_seen_at: new Date().toISOString(),
        expires_at: new Date(Date.now() + 3600_000).toISOString(),
      });
      await store.insertSession(session('ana-session', ana!.id));
      await store.insertSession(session('bob-session', bob!.id));

      const reset = await nature(['users', 'reset', '--email', 'ANA@example.com']);
      expect(reset.status, reset.stderr).toBe(0);
      const second = linkToken(reset.stdout);
      expect(second).not.toBe(first);
      expect(reset.stderr).toMatch(/every session ended/);
      expect(reset.stderr).toMatch(/works once, for 72 hours/);
      expect(await store.userBySetupToken(tokenHash(first))).toBeUndefined();
      expect((await store.userBySetupToken(tokenHash(second)))?.id).toBe(ana!.id);
      expect(await store.session('ana-session')).toBeUndefined();
      expect(await store.session('bob-session')).toBeDefined();
      expect((await store.activity(ACCOUNT_ID, 1))[0]).toMatchObject({
        action: 'user.reset',
        target: ana!.id,
        actor: { type: 'operator' },
      });

      const json = await nature(['users', 'reset', '--email', 'bob@example.com', '--json']);
      expect(JSON.parse(json.stdout)).toMatchObject({
        id: bob!.id,
        email: 'bob@example.com',
        setup_link: expect.stringContaining('?token='),
      });
    });

    it('fails in one line for an address nobody has', async () => {
      expect((await nature(keyCreateArgs())).status).toBe(0);
      expectFailure(await nature(['users', 'reset', '--email', 'zed@example.com']), 1, /^nature: no user with zed@example\.com/);
      expect((await nature(['users', 'create', '--email', 'ana@example.com'])).status).toBe(0);
      expectFailure(await nature(['users', 'reset', '--email', 'zed@example.com']), 1, /^nature: no user with zed@example\.com/);
    });
  });

  describe('applications', () => {
    const input = { organisation: 'Example Ltd', intended_use: 'hiring for care roles', expected_monthly_completions: 1200 };

    it('lists, shows and approves the pending application once; approving twice says it is approved already', async () => {
      expect((await nature(keyCreateArgs())).status).toBe(0);
      const none = await nature(['applications', 'list']);
      expect(none.status).toBe(0);
      expect(none.stderr).toBe('nature: no application for production access yet\n');
      expect(JSON.parse((await nature(['applications', 'list', '--json'])).stdout)).toEqual([]);
      expectFailure(await nature(['applications', 'show', ACCOUNT_ID]), 1, /^nature: acct_default has not applied for production access/);
      expectFailure(await nature(['applications', 'approve', ACCOUNT_ID]), 1, /^nature: acct_default has not applied/);

      const store = accounts();
      const submitted = await submitApplication(store, input, 'usr_01M7ZRVYPSC40AR17Y7WS0FTK0', new Date('2026-11-20T09:00:00.000Z'));

      const list = await nature(['applications', 'list']);
      expect(list.status, list.stderr).toBe(0);
      expect(list.stdout.trimEnd().split('\n')).toEqual([
        expect.stringMatching(/^ACCOUNT +STATUS +COMPLETIONS\/MONTH +SUBMITTED +ORGANISATION$/),
        expect.stringMatching(/^acct_default +pending +1200 +2026-11-20T09:00:00\.000Z +Example Ltd$/),
      ]);
      expect(JSON.parse((await nature(['applications', 'list', '--json'])).stdout)).toEqual([submitted]);
      const show = await nature(['applications', 'show', ACCOUNT_ID]);
      expect(show.stdout).toMatch(/^status +pending$/m);
      expect(show.stdout).toMatch(/^intended_use +hiring for care roles$/m);
      expect(show.stdout).toMatch(/^submitted_by +usr_01M7ZRVYPSC40AR17Y7WS0FTK0$/m);
      expect(show.stdout).toMatch(/^decided_at +-$/m);
      expect(JSON.parse((await nature(['applications', 'show', ACCOUNT_ID, '--json'])).stdout)).toEqual(submitted);
      expectFailure(
        await nature(['applications', 'show', 'acct_other']),
        1,
        /^nature: no account acct_other: the one account at v1 is acct_default$/,
      );
      expectFailure(await nature(['applications', 'approve', 'acct_other']), 1, /^nature: no account acct_other/);

      const approved = await nature(['applications', 'approve', ACCOUNT_ID]);
      expect(approved.status, approved.stderr).toBe(0);
      expect(approved.stdout).toBe('acct_default: production access approved; its people may now create live keys\n');
      expect(await store.application(ACCOUNT_ID)).toMatchObject({ status: 'approved', reason: null, decided_at: expect.any(String) });
      expect((await store.activity(ACCOUNT_ID, 1))[0]).toMatchObject({ action: 'application.approved', actor: { type: 'operator' } });

      expectFailure(
        await nature(['applications', 'approve', ACCOUNT_ID]),
        1,
        /^nature: the application of acct_default was approved already, at \S+: only a pending one is decided$/,
      );
      expectFailure(
        await nature(['applications', 'reject', ACCOUNT_ID, '--reason', 'changed our mind']),
        1,
        /^nature: the application of acct_default was approved already/,
      );
      expect(JSON.parse((await nature(['applications', 'show', ACCOUNT_ID, '--json'])).stdout)).toMatchObject({ status: 'approved' });
    });

    it('rejects only with a reason, which the application then shows; JSON on request', async () => {
      const store = accounts();
      await submitApplication(store, input, 'usr_01M7ZRVYPSC40AR17Y7WS0FTK0', new Date());
      expectFailure(await nature(['applications', 'reject', ACCOUNT_ID]), 2, /^nature: required option '--reason <text>' not specified$/);
      expectFailure(await nature(['applications', 'reject', ACCOUNT_ID, '--reason', '  ']), 2, /A reason has 1 to 500 characters/);
      expectFailure(await nature(['applications', 'reject', ACCOUNT_ID, '--reason', 'a\nb']), 2, /A reason has printable characters only/);
      expect((await store.application(ACCOUNT_ID))?.status).toBe('pending');

      const rejected = await nature(['applications', 'reject', ACCOUNT_ID, '--reason', ' Tell us which product it is for. ', '--json']);
      expect(rejected.status, rejected.stderr).toBe(0);
      expect(JSON.parse(rejected.stdout)).toMatchObject({ status: 'rejected', reason: 'Tell us which product it is for.' });
      expect((await nature(['applications', 'show', ACCOUNT_ID])).stdout).toMatch(/^reason +Tell us which product it is for\.$/m);
      expect((await store.activity(ACCOUNT_ID, 1))[0]).toMatchObject({
        action: 'application.rejected',
        actor: { type: 'operator' },
        detail: 'Tell us which product it is for.',
      });
      expectFailure(await nature(['applications', 'approve', ACCOUNT_ID]), 1, /was rejected already/);
    });

    it("shows an applicant's text with its control characters escaped, so it cannot forge or hide lines", async () => {
      await submitApplication(accounts(), { ...input, organisation: 'Evil\nacct_default  approved\u202E' }, 'usr_x', new Date());
      const list = await nature(['applications', 'list']);
      expect(list.stdout.trimEnd().split('\n')).toHaveLength(2);
      expect(list.stdout).toContain('Evil\\u000aacct_default  approved\\u202e');
      expect((await nature(['applications', 'show', ACCOUNT_ID])).stdout).toMatch(
        /^organisation +Evil\\u000aacct_default {2}approved\\u202e$/m,
      );
    });
  });

  describe('keys, in the activity', () => {
    it('records each key created, rotated and revoked at the command line, by the operator', async () => {
      const created = JSON.parse((await nature(keyCreateArgs('test', 'backend'))).stdout) as { id: string; key: string };
      const rotated = await nature(['keys', 'rotate', created.id, '--json']);
      expect(rotated.status, rotated.stderr).toBe(0);
      const next = JSON.parse(rotated.stdout) as { id: string; key: string };
      expect((await nature(['keys', 'revoke', next.id])).stdout).toBe(`${next.id} revoked\n`);
      const activity = await accounts().activity(ACCOUNT_ID, 10);
      expect(activity).toEqual([
        expect.objectContaining({ action: 'key.revoked', target: next.id, actor: { type: 'operator' } }),
        expect.objectContaining({ action: 'key.rotated', target: created.id, actor: { type: 'operator' } }),
        expect.objectContaining({
          action: 'key.created',
          target: created.id,
          actor: { type: 'operator' },
          detail: expect.stringContaining('backend'),
        }),
      ]);
      for (const raw of [created.key, next.key]) expect(JSON.stringify(activity)).not.toContain(raw);
    });

    it('lets the operator mint a production key without an application, and records nothing for a refused command', async () => {
      const live = await nature(keyCreateArgs('live', 'prod'));
      expect(live.status, live.stderr).toBe(0);
      expect(JSON.parse(live.stdout)).toMatchObject({ environment: 'live' });
      expectFailure(
        await nature(['keys', 'revoke', 'key_01M00000000000000000000000']),
        1,
        /^nature: no key key_01M00000000000000000000000$/,
      );
      expect((await accounts().activity(ACCOUNT_ID, 10)).map((entry) => entry.action)).toEqual(['key.created']);
    });
  });
});

/** Runs of `nature keys create` killed: each lands at one moment of the write, so several are needed to land between two. */
const RUNS = 10;

describe('nature keys killed with SIGKILL in the middle of its write', () => {
  it('leaves every key with its activity entry, and no entry without its key', async () => {
    const dir = tempDir();
    try {
      // keys.db exists first, so what a later run writes to it first is the key.
      await runCliInProcess(keyCreateArgs('test', 'first'), { NATURE_DATA_DIR: dir.path });
      const endings: (number | string)[] = [];
      for (let run = 0; run < RUNS; run += 1) endings.push(await killedAsItWrites(dir.path, keyCreateArgs('test', `killed-${run}`)));
      const keys = new SqliteKeyStore(join(dir.path, 'keys.db'), 'FULL');
      const accounts = new SqliteAccountStore(join(dir.path, 'keys.db'), 'FULL');
      const ids = (await keys.list()).map((key) => key.id).sort();
      const recorded = (await accounts.activity(ACCOUNT_ID, 1000)).filter((entry) => entry.action === 'key.created');
      await keys.close();
      await accounts.close();
      expect(recorded.map((entry) => entry.target).sort()).toEqual(ids);
      // Nearly every run is killed; one may finish first on a busy machine, before its write is seen.
      expect(endings.filter((ending) => ending === 'SIGKILL').length).toBeGreaterThan(RUNS / 2);
    } finally {
      dir.cleanup();
    }
  });
});
