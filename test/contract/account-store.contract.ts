import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ACCOUNT_ID,
  type ActivityRecord,
  type ApplicationRecord,
  activity,
  newUserId,
  type SessionRecord,
  tokenHash,
  type UserRecord,
} from '../../src/domain/accounts.js';
import { type InvitationRecord, newInvitationId } from '../../src/domain/members.js';
import type { AccountStore } from '../../src/ports/account-store.js';

export interface AccountStoreFixture {
  store: AccountStore;
  /** Closes the store and opens it again on the same data; `store` is the new one afterwards. */
  reopen(): Promise<void>;
  /** Closes the current store and removes its data. */
  cleanup(): Promise<void>;
}

const at = (minute: number) => new Date(Date.UTC(2026, 10, 21, 10, minute, 0)).toISOString();

/** A user as the commands store one: the address sealed (an opaque envelope here), found by its index. */
export function user(index: string, fields: Partial<UserRecord> = {}): UserRecord {
  return {
    id: newUserId(),
    account_id: ACCOUNT_ID,
    role: 'owner',
    email_sealed: { alg: 'A256GCM', iv: 'aXYtaXYtaXYtaXY=', ct: Buffer.from(`sealed ${index}`).toString('base64') },
    email_index: index,
    password_hash: null,
    setup_token_hash: null,
    setup_expires_at: null,
    created_at: at(0),
    ...fields,
  };
}

function session(idHash: string, userId: string, fields: Partial<SessionRecord> = {}): SessionRecord {
  return { id_hash: idHash, user_id: userId, created_at: at(0), last_seen_at: at(0), expires_at: at(600), ...fields };
}

function application(fields: Partial<ApplicationRecord> = {}): ApplicationRecord {
  return {
    account_id: ACCOUNT_ID,
    status: 'pending',
    organisation: 'Example Ltd',
    intended_use: 'onboarding questionnaires',
    expected_monthly_completions: 1200,
    submitted_by: 'usr_01M00000000000000000000000',
    submitted_at: at(1),
    decided_at: null,
    reason: null,
    ...fields,
  };
}

function invitation(index: string, fields: Partial<InvitationRecord> = {}): InvitationRecord {
  return {
    id: newInvitationId(),
    account_id: ACCOUNT_ID,
    role: 'developer',
    email_sealed: { alg: 'A256GCM', iv: 'aXYtaXYtaXYtaXY=', ct: Buffer.from(`sealed ${index}`).toString('base64') },
    email_index: index,
    token_hash: tokenHash(`token ${index}`),
    expires_at: at(600),
    invited_by: 'usr_01M00000000000000000000000',
    created_at: at(0),
    ...fields,
  };
}

/** The behaviour every account-store adapter must have, as the SQLite store (in keys.db) has it. `open` gives each test an empty store. */
export function accountStoreContract(adapter: string, open: () => Promise<AccountStoreFixture>, skip = false): void {
  describe.skipIf(skip)(`account store contract: ${adapter}`, () => {
    let fixture: AccountStoreFixture;
    beforeEach(async () => {
      fixture = await open();
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    it('finds a user by id, by email index and by set-up token hash, as stored; nothing for an unknown one', async () => {
      const ana = user('index-ana', { setup_token_hash: tokenHash('token-ana'), setup_expires_at: at(60) });
      await fixture.store.insertUser(ana);
      expect(await fixture.store.user(ana.id)).toEqual(ana);
      expect(await fixture.store.userByEmailIndex('index-ana')).toEqual(ana);
      expect(await fixture.store.userBySetupToken(tokenHash('token-ana'))).toEqual(ana);
      expect(await fixture.store.user('usr_01M00000000000000000000000')).toBeUndefined();
      expect(await fixture.store.userByEmailIndex('index-bob')).toBeUndefined();
      expect(await fixture.store.userBySetupToken(tokenHash('token-bob'))).toBeUndefined();
    });

    it('lists every user in id order (oldest first); many users without a set-up link live side by side', async () => {
      const users = [user('a'), user('b', { password_hash: 'scrypt$x' }), user('c')];
      for (const each of [...users].reverse()) await fixture.store.insertUser(each);
      expect(await fixture.store.users()).toEqual(users);
    });

    it('refuses a second user with the same email index, changing nothing', async () => {
      const first = user('same-index');
      await fixture.store.insertUser(first);
      await expect(fixture.store.insertUser(user('same-index', { password_hash: 'scrypt$other' }))).rejects.toThrow();
      expect(await fixture.store.users()).toEqual([first]);
      expect(await fixture.store.userByEmailIndex('same-index')).toEqual(first);
    });

    it('sets a password without a token, spending any set-up link; false for an unknown user', async () => {
      const ana = user('ana', { setup_token_hash: tokenHash('link'), setup_expires_at: at(60) });
      await fixture.store.insertUser(ana);
      expect(await fixture.store.setPassword(ana.id, 'scrypt$new')).toBe(true);
      expect(await fixture.store.user(ana.id)).toEqual({
        ...ana,
        password_hash: 'scrypt$new',
        setup_token_hash: null,
        setup_expires_at: null,
      });
      expect(await fixture.store.userBySetupToken(tokenHash('link'))).toBeUndefined();
      expect(await fixture.store.setPassword('usr_01M00000000000000000000000', 'scrypt$x')).toBe(false);
    });

    it("sets a password with the user's set-up token once: a spent, another's or a wrong token no longer works", async () => {
      const ana = user('ana', { setup_token_hash: tokenHash('ana-link'), setup_expires_at: at(60) });
      const bob = user('bob', { setup_token_hash: tokenHash('bob-link'), setup_expires_at: at(60) });
      await fixture.store.insertUser(ana);
      await fixture.store.insertUser(bob);
      expect(await fixture.store.setPassword(ana.id, 'scrypt$stolen', tokenHash('bob-link'))).toBe(false);
      expect(await fixture.store.setPassword(ana.id, 'scrypt$guess', tokenHash('wrong'))).toBe(false);
      expect((await fixture.store.user(ana.id))?.password_hash).toBeNull();

      expect(await fixture.store.setPassword(ana.id, 'scrypt$first', tokenHash('ana-link'))).toBe(true);
      expect(await fixture.store.user(ana.id)).toMatchObject({
        password_hash: 'scrypt$first',
        setup_token_hash: null,
        setup_expires_at: null,
      });
      expect(await fixture.store.setPassword(ana.id, 'scrypt$again', tokenHash('ana-link'))).toBe(false);
      expect((await fixture.store.user(ana.id))?.password_hash).toBe('scrypt$first');
      expect(await fixture.store.user(bob.id)).toEqual(bob);
    });

    it('gives a user a fresh set-up link: the old token no longer finds nor sets, the new one does', async () => {
      const ana = user('ana', { password_hash: 'scrypt$old', setup_token_hash: tokenHash('old-link'), setup_expires_at: at(60) });
      await fixture.store.insertUser(ana);
      await fixture.store.setSetupToken(ana.id, tokenHash('new-link'), at(120));
      expect(await fixture.store.userBySetupToken(tokenHash('old-link'))).toBeUndefined();
      expect(await fixture.store.userBySetupToken(tokenHash('new-link'))).toEqual({
        ...ana,
        setup_token_hash: tokenHash('new-link'),
        setup_expires_at: at(120),
      });
      expect(await fixture.store.setPassword(ana.id, 'scrypt$x', tokenHash('old-link'))).toBe(false);
      expect(await fixture.store.setPassword(ana.id, 'scrypt$new', tokenHash('new-link'))).toBe(true);
      expect((await fixture.store.user(ana.id))?.password_hash).toBe('scrypt$new');
    });

    it("ends the user's sessions in the write that gives them a set-up link or sets their password, not before", async () => {
      const ana = user('ana', { password_hash: 'scrypt$old' });
      const bob = user('bob', { password_hash: 'scrypt$bob' });
      for (const each of [ana, bob]) await fixture.store.insertUser(each);
      const live = async () =>
        (await Promise.all(['a1', 'a2', 'b1'].map((hash) => fixture.store.session(hash)))).map((one) => one?.id_hash);
      for (const [hash, owner] of [
        ['a1', ana.id],
        ['b1', bob.id],
      ] as const)
        await fixture.store.insertSession(session(hash, owner));
      await fixture.store.setSetupToken(ana.id, tokenHash('link'), at(60));
      expect(await live()).toEqual([undefined, undefined, 'b1']);
      await fixture.store.insertSession(session('a2', ana.id));
      expect(await fixture.store.setPassword(ana.id, 'scrypt$x', tokenHash('wrong'))).toBe(false);
      expect(await live()).toEqual([undefined, 'a2', 'b1']);
      expect(await fixture.store.setPassword(ana.id, 'scrypt$new', tokenHash('link'))).toBe(true);
      expect(await live()).toEqual([undefined, undefined, 'b1']);
    });

    it('keeps a session as inserted, touches it, and deletes it', async () => {
      const ana = user('ana');
      await fixture.store.insertUser(ana);
      const kept = session('hash-1', ana.id);
      await fixture.store.insertSession(kept);
      expect(await fixture.store.session('hash-1')).toEqual(kept);
      expect(await fixture.store.session('hash-2')).toBeUndefined();
      await fixture.store.touchSession('hash-1', at(5));
      expect(await fixture.store.session('hash-1')).toEqual({ ...kept, last_seen_at: at(5) });
      // Touching one that is gone makes nothing.
      await fixture.store.touchSession('hash-2', at(5));
      expect(await fixture.store.session('hash-2')).toBeUndefined();
      await fixture.store.deleteSession('hash-1');
      expect(await fixture.store.session('hash-1')).toBeUndefined();
      await fixture.store.deleteSession('hash-1');
    });

    it('refuses a second session with the same id hash', async () => {
      await fixture.store.insertSession(session('hash-1', 'usr_a'));
      await expect(fixture.store.insertSession(session('hash-1', 'usr_b'))).rejects.toThrow();
      expect(await fixture.store.session('hash-1')).toMatchObject({ user_id: 'usr_a' });
    });

    it("ends every session of one user and no one else's", async () => {
      for (const [hash, owner] of [
        ['a1', 'usr_a'],
        ['a2', 'usr_a'],
        ['b1', 'usr_b'],
      ] as const)
        await fixture.store.insertSession(session(hash, owner));
      await fixture.store.deleteSessionsOf('usr_a');
      expect(await fixture.store.session('a1')).toBeUndefined();
      expect(await fixture.store.session('a2')).toBeUndefined();
      expect(await fixture.store.session('b1')).toMatchObject({ user_id: 'usr_b' });
    });

    it('ends every other session of a user, keeping the one named', async () => {
      for (const hash of ['a1', 'a2', 'a3']) await fixture.store.insertSession(session(hash, 'usr_a'));
      await fixture.store.deleteSessionsOf('usr_a', 'a2');
      expect(await fixture.store.session('a1')).toBeUndefined();
      expect(await fixture.store.session('a2')).toMatchObject({ user_id: 'usr_a' });
      expect(await fixture.store.session('a3')).toBeUndefined();
    });

    it('drops sessions idle since before the cut-off and those past their absolute end; keeps the rest', async () => {
      await fixture.store.insertSession(session('idle', 'usr_a', { last_seen_at: at(9) }));
      await fixture.store.insertSession(session('fresh', 'usr_a', { last_seen_at: at(10) }));
      await fixture.store.insertSession(session('ended', 'usr_a', { last_seen_at: at(30), expires_at: at(30) }));
      await fixture.store.insertSession(session('ending', 'usr_a', { last_seen_at: at(30), expires_at: at(31) }));
      await fixture.store.deleteExpiredSessions(at(10), at(30));
      expect(await fixture.store.session('idle')).toBeUndefined();
      expect(await fixture.store.session('ended')).toBeUndefined();
      expect(await fixture.store.session('fresh')).toBeDefined();
      expect(await fixture.store.session('ending')).toBeDefined();
    });

    it('counts failed sign-ins per key within the window, each failure under every key it is recorded under', async () => {
      expect(await fixture.store.failuresSince(['ip:1', 'user:a'], at(0))).toEqual([0, 0]);
      expect(await fixture.store.recordFailure(['ip:1', 'user:a'], at(1), at(0))).toEqual([1, 1]);
      expect(await fixture.store.recordFailure(['ip:1', 'user:b'], at(2), at(0))).toEqual([2, 1]);
      expect(await fixture.store.recordFailure(['ip:2', 'user:a'], at(3), at(0))).toEqual([1, 2]);
      expect(await fixture.store.failuresSince(['ip:1', 'ip:2', 'user:a', 'user:b', 'user:c'], at(0))).toEqual([2, 1, 2, 1, 0]);
      // The window starts at `since`, inclusive: a failure at 10:02 counts from 10:02, not from 10:03.
      expect(await fixture.store.failuresSince(['ip:1', 'user:a'], at(2))).toEqual([1, 1]);
      expect(await fixture.store.failuresSince(['ip:1', 'user:a'], at(3))).toEqual([0, 1]);
      // A later failure counts only those within its window.
      expect(await fixture.store.recordFailure(['ip:1'], at(20), at(2))).toEqual([2]);
      expect(await fixture.store.failuresSince(['ip:1'], at(21))).toEqual([0]);
    });

    it('records a failure under no key as nothing at all', async () => {
      expect(await fixture.store.recordFailure([], at(1), at(0))).toEqual([]);
      expect(await fixture.store.failuresSince([], at(0))).toEqual([]);
    });

    it('keeps the application as put; a new one replaces it; none for another account', async () => {
      expect(await fixture.store.application(ACCOUNT_ID)).toBeUndefined();
      const rejected = application({ status: 'rejected', decided_at: at(2), reason: 'too vague' });
      await fixture.store.putApplication(rejected);
      expect(await fixture.store.application(ACCOUNT_ID)).toEqual(rejected);
      const again = application({ organisation: 'Example Group', submitted_at: at(3) });
      await fixture.store.putApplication(again);
      expect(await fixture.store.application(ACCOUNT_ID)).toEqual(again);
      expect(await fixture.store.application('acct_other')).toBeUndefined();
    });

    it('decides a pending application once: deciding it twice, or one not pending, answers undefined and changes nothing', async () => {
      expect(await fixture.store.decideApplication(ACCOUNT_ID, { status: 'approved', at: at(4), reason: null })).toBeUndefined();
      const pending = application();
      await fixture.store.putApplication(pending);
      const approved = { ...pending, status: 'approved', decided_at: at(4), reason: null };
      expect(await fixture.store.decideApplication(ACCOUNT_ID, { status: 'approved', at: at(4), reason: null })).toEqual(approved);
      expect(
        await fixture.store.decideApplication(ACCOUNT_ID, { status: 'rejected', at: at(5), reason: 'changed my mind' }),
      ).toBeUndefined();
      expect(await fixture.store.decideApplication(ACCOUNT_ID, { status: 'approved', at: at(6), reason: null })).toBeUndefined();
      expect(await fixture.store.application(ACCOUNT_ID)).toEqual(approved);

      await fixture.store.putApplication(application({ submitted_at: at(7) }));
      expect(await fixture.store.decideApplication(ACCOUNT_ID, { status: 'rejected', at: at(8), reason: 'no organisation' })).toMatchObject(
        {
          status: 'rejected',
          decided_at: at(8),
          reason: 'no organisation',
          submitted_at: at(7),
        },
      );
      expect(await fixture.store.application(ACCOUNT_ID)).toMatchObject({ status: 'rejected', reason: 'no organisation' });
    });

    it('lets exactly one of concurrent decisions on a pending application win', async () => {
      await fixture.store.putApplication(application());
      const decisions = await Promise.all(
        (['approved', 'rejected', 'approved', 'rejected'] as const).map((status, i) =>
          fixture.store.decideApplication(ACCOUNT_ID, { status, at: at(10 + i), reason: status === 'rejected' ? 'no' : null }),
        ),
      );
      const won = decisions.filter((decided) => decided !== undefined);
      expect(won).toHaveLength(1);
      expect(await fixture.store.application(ACCOUNT_ID)).toEqual(won[0]);
    });

    it('writes a user, a set-up link, a password, an application and its decision with the entry recording each, or neither', async () => {
      const operator = { type: 'operator' } as const;
      const entry = (action: string, target: string) => activity(operator, action, target, '', new Date(at(5)));
      const recorded = async () => (await fixture.store.activity(ACCOUNT_ID, 100)).map((found) => found.action).reverse();
      const ana = user('idx-ana');
      await fixture.store.insertUser(ana, entry('user.created', ana.id));
      // Refused (the same address): no entry either.
      await expect(fixture.store.insertUser(user('idx-ana'), entry('user.created', 'duplicate'))).rejects.toThrow();
      await fixture.store.setSetupToken(ana.id, tokenHash('t'), at(60), entry('user.reset', ana.id));
      expect(await fixture.store.setPassword(ana.id, 'hash', tokenHash('t'), entry('user.password_set', ana.id))).toBe(true);
      // The link is spent: nothing set, nothing recorded.
      expect(await fixture.store.setPassword(ana.id, 'hash', tokenHash('t'), entry('user.password_set', 'again'))).toBe(false);
      await fixture.store.putApplication(application(), entry('application.submitted', ACCOUNT_ID));
      await fixture.store.decideApplication(
        ACCOUNT_ID,
        { status: 'approved', at: at(6), reason: null },
        entry('application.approved', ACCOUNT_ID),
      );
      // Nothing pending any more: nothing decided, nothing recorded.
      expect(
        await fixture.store.decideApplication(
          ACCOUNT_ID,
          { status: 'rejected', at: at(7), reason: null },
          entry('application.rejected', ACCOUNT_ID),
        ),
      ).toBeUndefined();
      await fixture.reopen();
      expect(await recorded()).toEqual([
        'user.created',
        'user.reset',
        'user.password_set',
        'application.submitted',
        'application.approved',
      ]);
    });

    it("lists the account's activity newest first, at most `limit` entries, as appended", async () => {
      const entries: ActivityRecord[] = [];
      for (let i = 0; i < 5; i += 1) {
        const actor = i % 2 === 0 ? ({ type: 'operator' } as const) : ({ type: 'user', user_id: 'usr_a' } as const);
        entries.push(activity(actor, 'key.created', `key_${i}`, `key number ${i}`, new Date(at(i))));
      }
      for (const entry of entries) await fixture.store.appendActivity(entry);
      await fixture.store.appendActivity({
        ...activity({ type: 'operator' }, 'key.created', 'key_x', 'x', new Date(at(9))),
        account_id: 'acct_other',
      });
      expect(await fixture.store.activity(ACCOUNT_ID, 10)).toEqual([...entries].reverse());
      expect(await fixture.store.activity(ACCOUNT_ID, 2)).toEqual([entries[4], entries[3]]);
      expect(await fixture.store.activity('acct_none', 10)).toEqual([]);
    });

    it('refuses a second activity entry with the same id', async () => {
      const entry = activity({ type: 'operator' }, 'key.revoked', 'key_1', 'k', new Date(at(1)));
      await fixture.store.appendActivity(entry);
      await expect(fixture.store.appendActivity({ ...entry, detail: 'forged' })).rejects.toThrow();
      expect(await fixture.store.activity(ACCOUNT_ID, 10)).toEqual([entry]);
    });

    it('keeps users, sessions, the application and the activity across a reopen', async () => {
      const ana = user('ana', { password_hash: 'scrypt$kept' });
      const entry = activity({ type: 'user', user_id: ana.id }, 'application.submitted', ACCOUNT_ID, 'Example Ltd', new Date(at(1)));
      await fixture.store.insertUser(ana);
      await fixture.store.insertSession(session('hash-1', ana.id));
      await fixture.store.putApplication(application());
      await fixture.store.appendActivity(entry);
      await fixture.reopen();
      expect(await fixture.store.userByEmailIndex('ana')).toEqual(ana);
      expect(await fixture.store.session('hash-1')).toEqual(session('hash-1', ana.id));
      expect(await fixture.store.application(ACCOUNT_ID)).toEqual(application());
      expect(await fixture.store.activity(ACCOUNT_ID, 10)).toEqual([entry]);
    });

    describe('members', () => {
      const entry = (action: string, target: string) => activity({ type: 'operator' }, action, target, '', new Date(at(5)));
      const recorded = async () => (await fixture.store.activity(ACCOUNT_ID, 100)).map((found) => found.action).reverse();
      const sessionsOf = async (...hashes: string[]) =>
        Promise.all(hashes.map(async (hash) => (await fixture.store.session(hash))?.user_id ?? null));

      it("changes a member's role while it is still the one decided on, ending their sessions and no one else's", async () => {
        const owner = user('owner');
        const dev = user('dev', { role: 'developer' });
        for (const each of [owner, dev]) await fixture.store.insertUser(each);
        await fixture.store.insertSession(session('owner-1', owner.id));
        await fixture.store.insertSession(session('dev-1', dev.id));
        await fixture.store.insertSession(session('dev-2', dev.id));
        expect(await fixture.store.members.changeRole(dev.id, 'developer', 'viewer', entry('member.role_changed', dev.id))).toBe('done');
        expect(await fixture.store.user(dev.id)).toEqual({ ...dev, role: 'viewer' });
        expect(await sessionsOf('owner-1', 'dev-1', 'dev-2')).toEqual([owner.id, null, null]);
        // Decided on a role the member no longer has, or on no member: nothing changes, nothing is recorded.
        expect(await fixture.store.members.changeRole(dev.id, 'developer', 'admin', entry('member.role_changed', 'stale'))).toBe('stale');
        expect(await fixture.store.members.changeRole('usr_01M00000000000000000000000', 'viewer', 'admin')).toBe('stale');
        expect((await fixture.store.user(dev.id))?.role).toBe('viewer');
        expect(await recorded()).toEqual(['member.role_changed']);
      });

      it('never demotes or removes the last owner; with two owners, one may go', async () => {
        const first = user('first');
        await fixture.store.insertUser(first);
        await fixture.store.insertSession(session('first-1', first.id));
        expect(await fixture.store.members.changeRole(first.id, 'owner', 'admin', entry('member.role_changed', first.id))).toBe(
          'last_owner',
        );
        expect(await fixture.store.members.removeUser(first.id, 'owner', entry('member.removed', first.id))).toBe('last_owner');
        expect(await fixture.store.user(first.id)).toEqual(first);
        expect(await sessionsOf('first-1')).toEqual([first.id]);
        expect(await recorded()).toEqual([]);

        const second = user('second');
        await fixture.store.insertUser(second);
        expect(await fixture.store.members.changeRole(first.id, 'owner', 'admin')).toBe('done');
        expect(await fixture.store.members.removeUser(second.id, 'owner')).toBe('last_owner');
        // An owner who stays an owner is no demotion.
        expect(await fixture.store.members.changeRole(second.id, 'owner', 'owner')).toBe('done');
      });

      it('lets one of two owners demoting each other at once win: one owner is left', async () => {
        const [a, b] = [user('a'), user('b')];
        for (const each of [a, b]) await fixture.store.insertUser(each);
        const outcomes = await Promise.all([
          fixture.store.members.changeRole(a.id, 'owner', 'admin'),
          fixture.store.members.removeUser(b.id, 'owner'),
          fixture.store.members.changeRole(b.id, 'owner', 'viewer'),
        ]);
        expect(outcomes.filter((outcome) => outcome === 'done')).toHaveLength(1);
        expect((await fixture.store.users()).filter((each) => each.role === 'owner')).toHaveLength(1);
      });

      it('removes a member and every session of theirs, recorded with it; a removed member is gone for a second removal', async () => {
        const owner = user('owner');
        const viewer = user('viewer', { role: 'viewer' });
        for (const each of [owner, viewer]) await fixture.store.insertUser(each);
        await fixture.store.insertSession(session('viewer-1', viewer.id));
        expect(await fixture.store.members.removeUser(viewer.id, 'viewer', entry('member.removed', viewer.id))).toBe('done');
        expect(await fixture.store.user(viewer.id)).toBeUndefined();
        expect(await fixture.store.userByEmailIndex('viewer')).toBeUndefined();
        expect(await sessionsOf('viewer-1')).toEqual([null]);
        expect(await fixture.store.members.removeUser(viewer.id, 'viewer', entry('member.removed', 'again'))).toBe('stale');
        await fixture.reopen();
        expect(await recorded()).toEqual(['member.removed']);
        expect(await fixture.store.users()).toEqual([owner]);
      });

      it('transfers ownership: the owner becomes an admin, the member the owner, the sessions of both end', async () => {
        const owner = user('owner');
        const admin = user('admin', { role: 'admin' });
        const other = user('other', { role: 'developer' });
        for (const each of [owner, admin, other]) await fixture.store.insertUser(each);
        for (const [hash, id] of [
          ['o', owner.id],
          ['a', admin.id],
          ['x', other.id],
        ] as const)
          await fixture.store.insertSession(session(hash, id));
        // Decided on a role the member no longer has, by someone who is not the owner, or to oneself: nothing.
        expect(await fixture.store.members.transferOwnership(owner.id, admin.id, 'developer')).toBe('stale');
        expect(await fixture.store.members.transferOwnership(other.id, admin.id, 'admin')).toBe('stale');
        expect(await fixture.store.members.transferOwnership(owner.id, owner.id, 'owner')).toBe('stale');
        expect(await recorded()).toEqual([]);
        expect(
          await fixture.store.members.transferOwnership(owner.id, admin.id, 'admin', entry('account.ownership_transferred', admin.id)),
        ).toBe('done');
        expect((await fixture.store.users()).map((each) => [each.id, each.role])).toEqual([
          [owner.id, 'admin'],
          [admin.id, 'owner'],
          [other.id, 'developer'],
        ]);
        expect(await sessionsOf('o', 'a', 'x')).toEqual([null, null, other.id]);
        // The former owner cannot do it again.
        expect(await fixture.store.members.transferOwnership(owner.id, other.id, 'developer')).toBe('stale');
        await fixture.reopen();
        expect(await recorded()).toEqual(['account.ownership_transferred']);
      });
    });

    describe('invitations', () => {
      const entry = (action: string, target: string) => activity({ type: 'operator' }, action, target, '', new Date(at(5)));
      const recorded = async () => (await fixture.store.activity(ACCOUNT_ID, 100)).map((found) => found.action).reverse();

      it('keeps invitations as inserted, oldest first, found by id and by token hash; nothing for unknown ones', async () => {
        const ana = invitation('ana');
        const bob = invitation('bob', { role: 'viewer' });
        await fixture.store.members.insertInvitation(bob);
        await fixture.store.members.insertInvitation(ana);
        const [older, newer] = [ana, bob].sort((x, y) => (x.id < y.id ? -1 : 1));
        expect(await fixture.store.members.invitations(ACCOUNT_ID)).toEqual([older, newer]);
        expect(await fixture.store.members.invitations('acct_other')).toEqual([]);
        expect(await fixture.store.members.invitation(ana.id)).toEqual(ana);
        expect(await fixture.store.members.invitationByToken(tokenHash('token bob'))).toEqual(bob);
        expect(await fixture.store.members.invitation(newInvitationId())).toBeUndefined();
        expect(await fixture.store.members.invitationByToken(tokenHash('token eve'))).toBeUndefined();
      });

      it('refuses a second invitation for the same address, changing nothing and recording nothing', async () => {
        const first = invitation('ana');
        await fixture.store.members.insertInvitation(first, entry('invitation.created', first.id));
        await expect(
          fixture.store.members.insertInvitation(invitation('ana', { token_hash: 'other' }), entry('invitation.created', 'twice')),
        ).rejects.toThrow();
        expect(await fixture.store.members.invitations(ACCOUNT_ID)).toEqual([first]);
        expect(await recorded()).toEqual(['invitation.created']);
      });

      it('revokes an invitation once: its token no longer finds it', async () => {
        const ana = invitation('ana');
        await fixture.store.members.insertInvitation(ana);
        expect(await fixture.store.members.deleteInvitation(ana.id, entry('invitation.revoked', ana.id))).toBe(true);
        expect(await fixture.store.members.deleteInvitation(ana.id, entry('invitation.revoked', 'again'))).toBe(false);
        expect(await fixture.store.members.invitationByToken(ana.token_hash)).toBeUndefined();
        expect(await fixture.store.members.acceptInvitation(ana.token_hash, at(1), user('ana'))).toBe(false);
        expect(await fixture.store.users()).toEqual([]);
        expect(await recorded()).toEqual(['invitation.revoked']);
      });

      it('is accepted once, before it expires, making the member in the same write', async () => {
        const ana = invitation('ana', { expires_at: at(60) });
        await fixture.store.members.insertInvitation(ana);
        const member = user('ana', { role: 'developer', password_hash: 'scrypt$ana' });
        // At its expiry it no longer works.
        expect(await fixture.store.members.acceptInvitation(ana.token_hash, at(60), member, entry('invitation.accepted', 'late'))).toBe(
          false,
        );
        expect(await fixture.store.users()).toEqual([]);
        expect(await fixture.store.members.acceptInvitation(ana.token_hash, at(59), member, entry('invitation.accepted', member.id))).toBe(
          true,
        );
        expect(await fixture.store.users()).toEqual([member]);
        expect(await fixture.store.members.invitations(ACCOUNT_ID)).toEqual([]);
        expect(await fixture.store.members.acceptInvitation(ana.token_hash, at(1), user('ana-again'))).toBe(false);
        await fixture.reopen();
        expect(await recorded()).toEqual(['invitation.accepted']);
      });

      it('refuses to accept for an address a member has, keeping the invitation', async () => {
        const ana = invitation('ana');
        await fixture.store.insertUser(user('ana'));
        await fixture.store.members.insertInvitation(ana);
        await expect(
          fixture.store.members.acceptInvitation(ana.token_hash, at(1), user('ana'), entry('invitation.accepted', 'x')),
        ).rejects.toThrow();
        expect(await fixture.store.members.invitations(ACCOUNT_ID)).toEqual([ana]);
        expect(await fixture.store.users()).toHaveLength(1);
        expect(await recorded()).toEqual([]);
      });

      it('lets exactly one of concurrent acceptances of one invitation win', async () => {
        const ana = invitation('ana');
        await fixture.store.members.insertInvitation(ana);
        const accepted = await Promise.all(
          [1, 2, 3, 4].map((i) => fixture.store.members.acceptInvitation(ana.token_hash, at(1), user(`ana-${i}`)).catch(() => false)),
        );
        expect(accepted.filter(Boolean)).toHaveLength(1);
        expect(await fixture.store.users()).toHaveLength(1);
      });
    });

    it('answers a ping', async () => {
      await expect(fixture.store.ping()).resolves.toBeUndefined();
    });
  });
}
