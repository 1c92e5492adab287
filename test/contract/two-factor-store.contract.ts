import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ACCOUNT_ID, activity } from '../../src/domain/accounts.js';
import type { PendingSignInRecord, TwoFactorRecord } from '../../src/domain/two-factor.js';
import { type AccountStoreFixture, user } from './account-store.contract.js';

const at = (minute: number) => new Date(Date.UTC(2026, 10, 21, 10, minute, 0)).toISOString();

/** A pending enrolment as the commands begin one: the secret sealed (an opaque envelope here), no code accepted yet. */
function enrolment(userId: string, marker = 'secret'): TwoFactorRecord {
  return {
    user_id: userId,
    secret_sealed: { alg: 'A256GCM', iv: 'aXYtaXYtaXYtaXY=', ct: Buffer.from(`sealed ${marker}`).toString('base64') },
    created_at: at(0),
    enabled_at: null,
    last_step: null,
    recovery_code_hashes: [],
  };
}

const pending = (idHash: string, fields: Partial<PendingSignInRecord> = {}): PendingSignInRecord => ({
  id_hash: idHash,
  user_id: 'usr_a',
  created_at: at(0),
  expires_at: at(10),
  ...fields,
});

const codes = ['h1', 'h2', 'h3'];

/** The behaviour of AccountStore.twoFactor every adapter must have; `open` gives each test an empty store. */
export function twoFactorStoreContract(adapter: string, open: () => Promise<AccountStoreFixture>, skip = false): void {
  describe.skipIf(skip)(`two-factor store contract: ${adapter}`, () => {
    let fixture: AccountStoreFixture;
    const store = () => fixture.store.twoFactor;
    beforeEach(async () => {
      fixture = await open();
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    /** usr_a's enrolment, turned on at time step 100 with the recovery codes h1..h3. */
    async function enabled(userId = 'usr_a') {
      await store().begin(enrolment(userId));
      expect(await store().enable(userId, 100, codes, at(1))).toBe(true);
    }

    it('begins an enrolment once: a second begin answers the first, as stored; nothing for another user', async () => {
      expect(await store().get('usr_a')).toBeUndefined();
      const first = enrolment('usr_a', 'first');
      expect(await store().begin(first)).toEqual(first);
      expect(await store().begin(enrolment('usr_a', 'second'))).toEqual(first);
      expect(await store().get('usr_a')).toEqual(first);
      expect(await store().get('usr_b')).toBeUndefined();
    });

    it('lets exactly one of concurrent begins stand', async () => {
      const begun = await Promise.all(['one', 'two', 'three', 'four'].map((marker) => store().begin(enrolment('usr_a', marker))));
      const standing = await store().get('usr_a');
      expect(begun).toEqual(begun.map(() => standing));
    });

    it('turns a pending enrolment on once, with its first step and recovery codes; lists only those on, in id order', async () => {
      expect(await store().enable('usr_a', 100, codes, at(1))).toBe(false);
      await store().begin(enrolment('usr_b'));
      await store().begin(enrolment('usr_a'));
      await store().begin(enrolment('usr_c'));
      expect(await store().enabledUserIds()).toEqual([]);
      expect(await store().enable('usr_b', 100, codes, at(1))).toBe(true);
      expect(await store().enable('usr_a', 100, codes, at(2))).toBe(true);
      expect(await store().enable('usr_a', 200, ['other'], at(3))).toBe(false);
      expect(await store().get('usr_a')).toEqual({ ...enrolment('usr_a'), enabled_at: at(2), last_step: 100, recovery_code_hashes: codes });
      expect(await store().enabledUserIds()).toEqual(['usr_a', 'usr_b']);
    });

    it('accepts each time step once, only later than every step accepted before, and only while two-factor is on', async () => {
      await store().begin(enrolment('usr_a'));
      expect(await store().acceptStep('usr_a', 100)).toBe(false);
      expect(await store().enable('usr_a', 100, codes, at(1))).toBe(true);
      // The code that confirmed the enrolment is spent: it does not sign in.
      expect(await store().acceptStep('usr_a', 100)).toBe(false);
      expect(await store().acceptStep('usr_a', 99)).toBe(false);
      expect(await store().acceptStep('usr_a', 101)).toBe(true);
      expect(await store().acceptStep('usr_a', 101)).toBe(false);
      expect(await store().acceptStep('usr_a', 103)).toBe(true);
      expect(await store().acceptStep('usr_a', 102)).toBe(false);
      expect(await store().get('usr_a')).toMatchObject({ last_step: 103 });
      expect(await store().acceptStep('usr_b', 500)).toBe(false);
    });

    it('accepts a step for exactly one of concurrent requests', async () => {
      await enabled();
      const accepted = await Promise.all(Array.from({ length: 8 }, () => store().acceptStep('usr_a', 101)));
      expect(accepted.filter(Boolean)).toHaveLength(1);
    });

    it('spends each recovery code once; a code of another user, or while two-factor is pending, spends nothing', async () => {
      await store().begin(enrolment('usr_b'));
      expect(await store().spendRecoveryCode('usr_b', 'h1')).toBe(false);
      await enabled();
      expect(await store().spendRecoveryCode('usr_b', 'h1')).toBe(false);
      expect(await store().spendRecoveryCode('usr_a', 'h2')).toBe(true);
      expect(await store().spendRecoveryCode('usr_a', 'h2')).toBe(false);
      expect(await store().spendRecoveryCode('usr_a', 'unknown')).toBe(false);
      expect((await store().get('usr_a'))?.recovery_code_hashes).toEqual(['h1', 'h3']);
    });

    it('spends a recovery code for exactly one of concurrent requests', async () => {
      await enabled();
      const spent = await Promise.all(Array.from({ length: 8 }, () => store().spendRecoveryCode('usr_a', 'h3')));
      expect(spent.filter(Boolean)).toHaveLength(1);
      expect((await store().get('usr_a'))?.recovery_code_hashes).toEqual(['h1', 'h2']);
    });

    it('replaces the recovery codes, spent ones and all, only while two-factor is on', async () => {
      await store().begin(enrolment('usr_b'));
      expect(await store().replaceRecoveryCodes('usr_b', ['n1'])).toBe(false);
      expect((await store().get('usr_b'))?.recovery_code_hashes).toEqual([]);
      await enabled();
      await store().spendRecoveryCode('usr_a', 'h1');
      expect(await store().replaceRecoveryCodes('usr_a', ['n1', 'n2'])).toBe(true);
      expect(await store().spendRecoveryCode('usr_a', 'h2')).toBe(false);
      expect(await store().spendRecoveryCode('usr_a', 'n2')).toBe(true);
      expect(await store().replaceRecoveryCodes('usr_c', ['n1'])).toBe(false);
    });

    it('removes an enrolment, pending or on, once; a new one may then begin', async () => {
      await enabled();
      await store().begin(enrolment('usr_b'));
      expect(await store().disable('usr_a')).toBe(true);
      expect(await store().disable('usr_b')).toBe(true);
      expect(await store().disable('usr_a')).toBe(false);
      expect(await store().get('usr_a')).toBeUndefined();
      expect(await store().enabledUserIds()).toEqual([]);
      expect(await store().acceptStep('usr_a', 500)).toBe(false);
      const again = enrolment('usr_a', 'again');
      expect(await store().begin(again)).toEqual(again);
    });

    it("keeps the account's requirement: off until set, and a setting that changes nothing answers false", async () => {
      expect(await store().required(ACCOUNT_ID)).toBe(false);
      expect(await store().setRequired(ACCOUNT_ID, false)).toBe(false);
      expect(await store().setRequired(ACCOUNT_ID, true)).toBe(true);
      expect(await store().required(ACCOUNT_ID)).toBe(true);
      expect(await store().required('acct_other')).toBe(false);
      expect(await store().setRequired(ACCOUNT_ID, true)).toBe(false);
      expect(await store().setRequired(ACCOUNT_ID, false)).toBe(true);
      expect(await store().required(ACCOUNT_ID)).toBe(false);
      expect(await store().setRequired(ACCOUNT_ID, false)).toBe(false);
    });

    it('writes each change with the entry recording it, and no entry for a change refused or that changes nothing', async () => {
      const entry = (action: string) => activity({ type: 'user', user_id: 'usr_a' }, action, 'usr_a', '', new Date(at(5)));
      await store().begin(enrolment('usr_a'));
      expect(await store().replaceRecoveryCodes('usr_a', ['x'], entry('refused.replace'))).toBe(false);
      expect(await store().enable('usr_a', 100, codes, at(1), entry('user.two_factor_enabled'))).toBe(true);
      expect(await store().enable('usr_a', 100, codes, at(1), entry('refused.enable'))).toBe(false);
      expect(await store().spendRecoveryCode('usr_a', 'h1', entry('user.recovery_code_used'))).toBe(true);
      expect(await store().spendRecoveryCode('usr_a', 'h1', entry('refused.spend'))).toBe(false);
      expect(await store().replaceRecoveryCodes('usr_a', ['n1'], entry('user.recovery_codes_replaced'))).toBe(true);
      expect(await store().setRequired(ACCOUNT_ID, true, entry('account.two_factor_required'))).toBe(true);
      expect(await store().setRequired(ACCOUNT_ID, true, entry('refused.require'))).toBe(false);
      expect(await store().disable('usr_a', entry('user.two_factor_disabled'))).toBe(true);
      expect(await store().disable('usr_a', entry('refused.disable'))).toBe(false);
      await fixture.reopen();
      expect((await fixture.store.activity(ACCOUNT_ID, 100)).map((found) => found.action).reverse()).toEqual([
        'user.two_factor_enabled',
        'user.recovery_code_used',
        'user.recovery_codes_replaced',
        'account.two_factor_required',
        'user.two_factor_disabled',
      ]);
    });

    it('keeps a pending sign-in until it is spent, once; a new one drops those ended by its start', async () => {
      await store().insertPending(pending('p1', { expires_at: at(10) }));
      await store().insertPending(pending('p2', { created_at: at(5), expires_at: at(15) }));
      expect(await store().pending('p1')).toEqual(pending('p1', { expires_at: at(10) }));
      await expect(store().insertPending(pending('p2', { user_id: 'usr_b' }))).rejects.toThrow();
      expect(await store().pending('p2')).toMatchObject({ user_id: 'usr_a' });
      await store().insertPending(pending('p3', { created_at: at(10), expires_at: at(20) }));
      expect(await store().pending('p1')).toBeUndefined();
      expect(await store().pending('p2')).toBeDefined();
    });

    it('spends a pending sign-in as its session starts, with the sign-in entry, in one write: once', async () => {
      await store().insertPending(pending('p2'));
      const session = (idHash: string) => ({
        id_hash: idHash,
        user_id: 'usr_a',
        created_at: at(1),
        last_seen_at: at(1),
        expires_at: at(600),
      });
      const signedIn = (target: string) =>
        activity({ type: 'user', user_id: 'usr_a' }, 'user.signed_in', target, 'with a code', new Date(at(1)));
      const started = await Promise.all([
        fixture.store.insertSession(session('s1'), signedIn('s1'), 'p2'),
        fixture.store.insertSession(session('s2'), signedIn('s2'), 'p2'),
      ]);
      expect(started.filter(Boolean)).toHaveLength(1);
      const winner = started[0] ? 's1' : 's2';
      expect(await store().pending('p2')).toBeUndefined();
      expect(await fixture.store.session(winner)).toMatchObject({ user_id: 'usr_a' });
      expect(await fixture.store.session(winner === 's1' ? 's2' : 's1')).toBeUndefined();
      expect(await fixture.store.insertSession(session('s3'), signedIn('s3'), 'unknown')).toBe(false);
      expect(await fixture.store.session('s3')).toBeUndefined();
      expect((await fixture.store.activity(ACCOUNT_ID, 10)).map((entry) => entry.target)).toEqual([winner]);
    });

    it("forgets a removed member's enrolment and pending sign-ins with them, and no one else's", async () => {
      const owner = user('owner');
      const developer = user('developer', { role: 'developer' });
      for (const each of [owner, developer]) {
        await fixture.store.insertUser(each);
        await enabled(each.id);
      }
      await store().insertPending(pending('p-owner', { user_id: owner.id }));
      await store().insertPending(pending('p-developer', { user_id: developer.id }));
      expect(await fixture.store.members.removeUser(developer.id, 'developer')).toBe('done');
      await fixture.reopen();
      expect(await store().get(developer.id)).toBeUndefined();
      expect(await store().pending('p-developer')).toBeUndefined();
      expect(await store().enabledUserIds()).toEqual([owner.id]);
      expect(await store().pending('p-owner')).toMatchObject({ user_id: owner.id });
    });

    it("ends a user's sign-ins still waiting for their code with their sessions, and no one else's", async () => {
      await store().insertPending(pending('p-a'));
      await store().insertPending(pending('p-b', { user_id: 'usr_b' }));
      await fixture.store.deleteSessionsOf('usr_a');
      expect(await store().pending('p-a')).toBeUndefined();
      expect(await store().pending('p-b')).toMatchObject({ user_id: 'usr_b' });
    });

    it('keeps enrolments, the requirement and pending sign-ins across a reopen', async () => {
      await enabled();
      await store().acceptStep('usr_a', 101);
      await store().setRequired(ACCOUNT_ID, true);
      await store().insertPending(pending('p1'));
      await fixture.reopen();
      expect(await store().get('usr_a')).toEqual({ ...enrolment('usr_a'), enabled_at: at(1), last_step: 101, recovery_code_hashes: codes });
      expect(await store().required(ACCOUNT_ID)).toBe(true);
      expect(await store().pending('p1')).toEqual(pending('p1'));
    });
  });
}
