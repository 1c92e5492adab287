import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteAccountStore } from '../../src/adapters/sqlite/account-store.js';
import { SqliteKeyStore } from '../../src/adapters/sqlite/key-store.js';
import {
  type AccountContext,
  createUser,
  decideApplication,
  emailOf,
  findUser,
  resetUser,
  submitApplication,
  UserExistsError,
} from '../../src/commands/accounts.js';
import { type KeyContext, KeyRuleError, mintApiKey, revokeApiKey, rotateApiKey } from '../../src/commands/api-keys.js';
import {
  ACCOUNT_ID,
  type Actor,
  isEmail,
  PASSWORD_MAX,
  PASSWORD_MIN,
  passwordHash,
  passwordMatches,
  passwordProblem,
  SETUP_LINK_MS,
  tokenHash,
} from '../../src/domain/accounts.js';
import { hashKey, type MintRequest, mintProblem } from '../../src/domain/api-keys.js';
import { loadStoreConfig } from '../../src/settings/config.js';
import { openDataKeys } from '../../src/wiring/environments.js';
import { filesContaining } from '../support/byte-scan.js';
import { tempDir } from '../support/temp-dir.js';

describe('passwords', () => {
  it('stores scrypt$N$r$p$salt$hash, salted afresh each time, never the password itself', async () => {
    const password = 'correct horse battery staple';
    const [first, second] = await Promise.all([passwordHash(password), passwordHash(password)]);
    expect(first).toMatch(/^scrypt\$32768\$8\$3\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    expect(second).not.toBe(first);
    expect(first).not.toContain(password);
    expect(await passwordMatches(password, first)).toBe(true);
    expect(await passwordMatches(password, second)).toBe(true);
  });

  it('refuses a wrong password, one differing only in case or a trailing space, and a stored value of another scheme', async () => {
    const stored = await passwordHash('correct horse battery staple');
    expect(await passwordMatches('correct horse battery stapl', stored)).toBe(false);
    expect(await passwordMatches('Correct horse battery staple', stored)).toBe(false);
    expect(await passwordMatches('correct horse battery staple ', stored)).toBe(false);
    expect(await passwordMatches('correct horse battery staple', 'bcrypt$whatever')).toBe(false);
    expect(await passwordMatches('correct horse battery staple', '')).toBe(false);
  });

  it('compares passwords NFC-normalised: an accent typed as one character or as two matches either way', async () => {
    const composed = 'un caf\u00e9 cr\u00e8me, s\u2019il vous pla\u00eet';
    const decomposed = composed.normalize('NFD');
    expect(decomposed).not.toBe(composed);
    expect(await passwordMatches(decomposed, await passwordHash(composed))).toBe(true);
    expect(await passwordMatches(composed, await passwordHash(decomposed))).toBe(true);
  });

  it.each([
    ['empty', '', /at least 12/],
    ['11 characters', 'a'.repeat(PASSWORD_MIN - 1), /at least 12/],
    ['11 emoji (22 UTF-16 units)', '🌿'.repeat(PASSWORD_MIN - 1), /at least 12/],
    ['1025 characters', 'a'.repeat(PASSWORD_MAX + 1), /at most 1024/],
  ])('refuses a password that is %s', (_case, password, problem) => {
    expect(passwordProblem(password)).toMatch(problem);
  });

  it.each([
    ['12 characters', 'a'.repeat(PASSWORD_MIN)],
    ['12 emoji', '🌿'.repeat(PASSWORD_MIN)],
    ['1024 characters', 'a'.repeat(PASSWORD_MAX)],
    ['only lower-case letters and spaces', 'a long sentence is a good password'],
  ])('takes a password of %s (length is what counts, not character classes)', (_case, password) => {
    expect(passwordProblem(password)).toBeUndefined();
  });
});

describe('isEmail', () => {
  it.each(['ana@example.com', ' Ana.Lima+dash@Example.CO.uk ', 'x@a.io'])('takes %j', (email) => {
    expect(isEmail(email)).toBe(true);
  });

  it.each([
    '',
    'ana',
    'ana@',
    '@example.com',
    'ana@example',
    'ana@example.c',
    'ana@@example.com',
    'ana lima@example.com',
    'ana@exa mple.com',
    `${'a'.repeat(65)}@example.com`,
    `ana@${'a'.repeat(250)}.com`,
  ])('refuses %j', (email) => {
    expect(isEmail(email)).toBe(false);
  });
});

describe('the account commands', () => {
  let dir: ReturnType<typeof tempDir>;
  let context: AccountContext & { accounts: SqliteAccountStore };
  let keys: SqliteKeyStore;
  const now = new Date('2026-11-21T10:00:00.000Z');
  beforeEach(async () => {
    dir = tempDir();
    const accounts = new SqliteAccountStore(join(dir.path, 'keys.db'), 'FULL');
    keys = new SqliteKeyStore(join(dir.path, 'keys.db'), 'FULL');
    const dataKeys = await openDataKeys(loadStoreConfig({ NATURE_DATA_DIR: dir.path }), 'test');
    context = { accounts, dataKeys };
  });
  afterEach(async () => {
    await context.accounts.close();
    await context.dataKeys.close();
    await keys.close();
    dir.cleanup();
  });

  describe('createUser', () => {
    it('stores the address sealed and indexed by a keyed hash, never in plain text nor as its plain hash', async () => {
      const { user, setupToken } = await createUser(context, 'Ana.Lima@Example.com', 'correct horse battery staple', now);
      expect(setupToken).toBeUndefined();
      const stored = await context.accounts.user(user.id);
      expect(stored).toEqual(user);
      expect(user).toMatchObject({
        id: expect.stringMatching(/^usr_/),
        account_id: ACCOUNT_ID,
        role: 'owner',
        setup_token_hash: null,
        setup_expires_at: null,
        created_at: now.toISOString(),
      });
      const text = JSON.stringify(stored);
      for (const plain of ['Ana.Lima@Example.com', 'ana.lima@example.com', 'ana.lima', 'Example.com', 'example.com'])
        expect(text).not.toContain(plain);
      const unkeyed = createHash('sha256').update('ana.lima@example.com').digest('hex');
      expect(user.email_index).not.toBe(unkeyed);
      expect(await emailOf(context, user)).toBe('ana.lima@example.com');
      expect(await passwordMatches('correct horse battery staple', user.password_hash!)).toBe(true);
      await context.accounts.close();
      expect(filesContaining(dir.path, ['ana.lima@example.com', 'Ana.Lima@Example.com', unkeyed])).toEqual([]);
      context.accounts = new SqliteAccountStore(join(dir.path, 'keys.db'), 'FULL');
    });

    it('finds the user by the address in any case and with surrounding space; nobody for another address', async () => {
      const { user } = await createUser(context, 'ana@example.com', 'correct horse battery staple', now);
      expect((await findUser(context, 'ana@example.com'))?.id).toBe(user.id);
      expect(await findUser(context, '  ANA@Example.COM ')).toEqual(user);
      expect(await findUser(context, 'bob@example.com')).toBeUndefined();
    });

    it('refuses a second user with the same address, in any case, with UserExistsError and changes nothing', async () => {
      const { user } = await createUser(context, 'ana@example.com', undefined, now);
      await expect(createUser(context, ' ANA@example.com', 'correct horse battery staple', now)).rejects.toThrow(UserExistsError);
      expect(await context.accounts.users()).toEqual([user]);
    });

    it('gives a one-time set-up link for 72 hours only to a user created without a password, stored as its hash', async () => {
      const { user, setupToken } = await createUser(context, 'ana@example.com', undefined, now);
      expect(setupToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(user).toMatchObject({
        password_hash: null,
        setup_token_hash: tokenHash(setupToken!),
        setup_expires_at: new Date(now.getTime() + SETUP_LINK_MS).toISOString(),
      });
      expect(SETUP_LINK_MS).toBe(72 * 3600 * 1000);
      expect(JSON.stringify(await context.accounts.user(user.id))).not.toContain(setupToken);
      expect((await context.accounts.userBySetupToken(tokenHash(setupToken!)))?.id).toBe(user.id);
      expect((await createUser(context, 'bob@example.com', 'correct horse battery staple', now)).setupToken).toBeUndefined();
    });

    it("records the operator's creation in the activity", async () => {
      const { user } = await createUser(context, 'ana@example.com', undefined, now);
      expect(await context.accounts.activity(ACCOUNT_ID, 10)).toEqual([
        expect.objectContaining({ actor: { type: 'operator' }, action: 'user.created', target: user.id, at: now.toISOString() }),
      ]);
    });
  });

  describe('resetUser', () => {
    it('issues a new set-up link (the old one stops working) and ends every session of the user only', async () => {
      const { user, setupToken } = await createUser(context, 'ana@example.com', undefined, now);
      const bob = (await createUser(context, 'bob@example.com', 'correct horse battery staple', now)).user;
      const session = (idHash: string, userId: string) => ({
        id_hash: idHash,
        user_id: userId,
        created_at: now.toISOString(),
        last_seen_at: now.toISOString(),
        expires_at: new Date(now.getTime() + 3600_000).toISOString(),
      });
      await context.accounts.insertSession(session('ana-1', user.id));
      await context.accounts.insertSession(session('bob-1', bob.id));
      const later = new Date(now.getTime() + 60_000);
      const token = await resetUser(context, user, later);
      expect(token).not.toBe(setupToken);
      expect(await context.accounts.userBySetupToken(tokenHash(setupToken!))).toBeUndefined();
      expect(await context.accounts.userBySetupToken(tokenHash(token))).toMatchObject({
        id: user.id,
        setup_expires_at: new Date(later.getTime() + SETUP_LINK_MS).toISOString(),
      });
      expect(await context.accounts.session('ana-1')).toBeUndefined();
      expect(await context.accounts.session('bob-1')).toBeDefined();
      expect((await context.accounts.activity(ACCOUNT_ID, 1))[0]).toMatchObject({
        action: 'user.reset',
        target: user.id,
        actor: { type: 'operator' },
      });
    });
  });

  describe('the commands on keys', () => {
    const keyContext = (): KeyContext => ({ keys, accounts: context.accounts });
    const request = (fields: Partial<MintRequest> = {}): MintRequest => ({
      name: 'backend',
      environment: 'test',
      type: 'sk',
      scopes: ['nature:read', 'nature:write'],
      ...fields,
    });
    const user: Actor = { type: 'user', user_id: 'usr_01M7ZRVYPSC40AR17Y7WS0FTK0' };
    const operator: Actor = { type: 'operator' };

    it.each([
      ['an empty name', { name: '' }, /A name has 1 to 100 characters/],
      ['a blank name', { name: '   ' }, /A name has 1 to 100 characters/],
      ['a name of 101 characters', { name: 'x'.repeat(101) }, /A name has 1 to 100 characters/],
      ['a name with a newline', { name: 'ci\nfake line' }, /printable characters only/],
      ['a name with a bidi override', { name: 'ci\u202Etxt' }, /printable characters only/],
      ['no scope', { scopes: [] }, /at least one scope/],
      [
        'a pk key with nature:write',
        { type: 'pk', scopes: ['nature:read', 'nature:write'] },
        /pk \(publishable\) key cannot have nature:write/,
      ],
      ['an sk key with origins', { origins: ['https://app.example.com'] }, /Allowed origins are for pk/],
    ] as const)('refuses to mint a key with %s, storing nothing', async (_case, fields, problem) => {
      const refused = request(fields as Partial<MintRequest>);
      expect(mintProblem(refused)).toMatch(problem);
      await expect(mintApiKey(keyContext(), operator, refused, now)).rejects.toThrow(KeyRuleError);
      expect(await keys.list()).toEqual([]);
      expect(await context.accounts.activity(ACCOUNT_ID, 10)).toEqual([]);
    });

    it.each([
      ['an sk key that reads and writes', {}],
      [
        'a pk key that reads, from two origins',
        { type: 'pk', scopes: ['nature:read'], origins: ['https://app.example.com', 'http://localhost:5173'] },
      ],
      ['a name of 100 characters', { name: 'é'.repeat(100) }],
    ] as const)('has no problem with %s', (_case, fields) => {
      expect(mintProblem(request(fields as Partial<MintRequest>))).toBeUndefined();
    });

    it('lets a dashboard user mint a production key only once the application is approved; sandbox keys always', async () => {
      const refused = /Production keys need an approved application/;
      await expect(mintApiKey(keyContext(), user, request({ environment: 'live' }), now)).rejects.toThrow(refused);
      expect((await mintApiKey(keyContext(), user, request(), now)).record.environment).toBe('test');

      await submitApplication(
        context.accounts,
        { organisation: 'Example Ltd', intended_use: 'hiring', expected_monthly_completions: 500 },
        user.user_id,
        now,
      );
      await expect(mintApiKey(keyContext(), user, request({ environment: 'live' }), now)).rejects.toThrow(refused);
      await decideApplication(context.accounts, { status: 'rejected', reason: 'too vague' }, now);
      await expect(mintApiKey(keyContext(), user, request({ environment: 'live' }), now)).rejects.toThrow(refused);
      expect((await keys.list()).map((key) => key.environment)).toEqual(['test']);

      await submitApplication(
        context.accounts,
        { organisation: 'Example Ltd', intended_use: 'hiring for roles in care', expected_monthly_completions: 500 },
        user.user_id,
        now,
      );
      await decideApplication(context.accounts, { status: 'approved', reason: null }, now);
      const live = await mintApiKey(keyContext(), user, request({ environment: 'live' }), now);
      expect(live.raw).toMatch(/^live_sk_/);
      expect(await keys.get(live.record.id)).toEqual(live.record);
    });

    it('lets the operator mint a production key without an application', async () => {
      expect(await context.accounts.application(ACCOUNT_ID)).toBeUndefined();
      const live = await mintApiKey(keyContext(), operator, request({ environment: 'live' }), now);
      expect(await keys.findByHash(hashKey(live.raw))).toEqual(live.record);
    });

    it('records who minted, rotated and revoked each key, with the key named but never its raw value', async () => {
      const minted = await mintApiKey(keyContext(), user, request({ name: '  reporting  ' }), now);
      expect(minted.record.name).toBe('reporting');
      const later = new Date(now.getTime() + 1000);
      const rotated = await rotateApiKey(keyContext(), operator, minted.record.id, later);
      expect(await keys.get(minted.record.id)).toMatchObject({ revoked_reason: 'rotated', revoked_at: later.toISOString() });
      expect(rotated.record).toMatchObject({ rotated_from: minted.record.id, name: 'reporting', scopes: minted.record.scopes });
      const revoked = await revokeApiKey(keyContext(), user, rotated.record.id, later);
      expect(revoked).toMatchObject({ id: rotated.record.id, revoked_reason: 'revoked' });

      const entries = await context.accounts.activity(ACCOUNT_ID, 10);
      expect(entries).toEqual([
        expect.objectContaining({ action: 'key.revoked', target: rotated.record.id, actor: user }),
        expect.objectContaining({
          action: 'key.rotated',
          target: minted.record.id,
          actor: operator,
          detail: expect.stringContaining(rotated.record.id),
        }),
        expect.objectContaining({
          action: 'key.created',
          target: minted.record.id,
          actor: user,
          detail: expect.stringContaining('reporting'),
        }),
      ]);
      for (const raw of [minted.raw, rotated.raw]) expect(JSON.stringify(entries)).not.toContain(raw);
    });

    it('refuses to rotate or revoke a key that is unknown or no longer active, recording nothing', async () => {
      const minted = await mintApiKey(keyContext(), operator, request(), now);
      await revokeApiKey(keyContext(), operator, minted.record.id, now);
      const before = await context.accounts.activity(ACCOUNT_ID, 10);
      await expect(rotateApiKey(keyContext(), operator, minted.record.id, now)).rejects.toThrow(/already revoked/);
      await expect(revokeApiKey(keyContext(), operator, minted.record.id, now)).rejects.toThrow(/already revoked/);
      await expect(revokeApiKey(keyContext(), operator, 'key_01M00000000000000000000000', now)).rejects.toThrow(KeyRuleError);
      expect(await context.accounts.activity(ACCOUNT_ID, 10)).toEqual(before);
      expect(await keys.list()).toHaveLength(1);
    });
  });
});
