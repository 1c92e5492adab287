import { afterEach, describe, expect, it } from 'vitest';
import { createUser } from '../../src/commands/accounts.js';
import { routeAccess } from '../../src/dashboard/route-access.js';
import { ACCOUNT_ID, type Role, tokenHash } from '../../src/domain/accounts.js';
import type { Mailer, MailMessage } from '../../src/ports/mailer.js';
import { Browser, PASSWORD } from '../support/dashboard.js';
import { decodeHtml } from '../support/html-text.js';
import { openTestApp, type TestApp } from '../support/test-app.js';

const NEW_PASSWORD = 'a brand new passphrase';
const LINK = /http:\/\/localhost\/dashboard\/invitation\?token=[A-Za-z0-9_-]+/;

/** A mailer that keeps what it was given, or refuses everything: the dashboard's side of the Mailer port. */
function recordingMailer(refuse = false): Mailer & { sent: MailMessage[] } {
  const sent: MailMessage[] = [];
  return {
    sent,
    async send(message) {
      if (refuse) throw new Error('550 mailbox unavailable');
      sent.push(message);
    },
    async close() {},
  };
}

describe('members and invitations in the dashboard', () => {
  let t: TestApp;
  afterEach(() => t?.close());

  /** A member made as the operator's `nature users create --role ROLE --password-stdin` makes one, signed in in a browser of their own. */
  async function member(role: Role, email = `${role}-${Math.random().toString(36).slice(2)}@example.com`) {
    const { user } = await createUser({ accounts: t.accounts, dataKeys: t.envs.test.dataKeys }, email, PASSWORD, new Date(), role);
    const browser = new Browser(t.app);
    expect((await browser.signIn(email)).statusCode).toBe(303);
    return { email, id: user.id, browser };
  }

  const activity = async () => (await t.accounts.activity(ACCOUNT_ID, 100)).map((entry) => [entry.action, entry.actor, entry.target]);
  /** What a reader sees of a page: its text, without markup, spaces run together. */
  const text = (page: string) => decodeHtml(page.replace(/<[^>]*>/g, ' ')).replace(/\s+/g, ' ');

  async function invite(browser: Browser, email: string, role: string) {
    await browser.get('/dashboard/members');
    return browser.post('/dashboard/members', { email, role });
  }

  it('invites a developer with a link shown once, which opens signed out, makes the member and signs them in, once', async () => {
    t = await openTestApp();
    const owner = await member('owner');
    const sent = await invite(owner.browser, 'New.Dev@Example.com ', 'developer');
    expect(sent.statusCode).toBe(303);
    const shown = await owner.browser.follow(sent);
    const link = LINK.exec(shown.body)?.[0];
    expect(link).toBeDefined();
    expect(text(shown.body)).toContain('Invitation for New.Dev@Example.com, as developer');
    // Shown once: the page again lists the invitation, never its link.
    const again = await owner.browser.get('/dashboard/members');
    expect(again.body).not.toMatch(LINK);
    expect(text(again.body)).toContain('new.dev@example.com');

    // Only a hash of the token is kept, and the address sealed.
    const [stored] = await t.accounts.members.invitations(ACCOUNT_ID);
    const token = new URL(link!).searchParams.get('token')!;
    expect(stored).toMatchObject({ role: 'developer', token_hash: tokenHash(token), invited_by: owner.id });
    expect(JSON.stringify(stored)).not.toContain('new.dev');

    const invitee = new Browser(t.app);
    const opened = await invitee.get(link!.replace('http://localhost', ''));
    expect(opened.statusCode).toBe(200);
    expect(text(opened.body)).toMatch(/as developer\s*, signing in as new\.dev@example\.com/);
    const joined = await invitee.post('/dashboard/invitation', { token, password: NEW_PASSWORD, confirm: NEW_PASSWORD });
    expect(joined.headers.location).toBe('/dashboard/keys?done=joined');
    const keys = await invitee.follow(joined);
    expect(text(keys.body)).toContain('new.dev@example.com · developer');
    expect(text(keys.body)).toContain('you are a member of this account now');

    // Spent: the link answers 404 and makes no one else.
    expect((await new Browser(t.app).get(link!.replace('http://localhost', ''))).statusCode).toBe(404);
    const reused = await new Browser(t.app).post('/dashboard/invitation', { token, password: NEW_PASSWORD, confirm: NEW_PASSWORD }, null);
    expect(reused.statusCode).toBe(403);
    expect((await t.accounts.users()).map((user) => user.role)).toEqual(['owner', 'developer']);
    expect(await t.accounts.members.invitations(ACCOUNT_ID)).toEqual([]);
    // Its address's key is shredded with it.
    expect(await t.envs.test.dataKeys.find(stored!.id)).toBeUndefined();

    const newcomer = (await t.accounts.users())[1]!;
    expect(await activity()).toEqual(
      expect.arrayContaining([
        ['invitation.created', { type: 'user', user_id: owner.id }, stored!.id],
        ['invitation.accepted', { type: 'user', user_id: newcomer.id }, newcomer.id],
      ]),
    );
    expect(text((await owner.browser.get('/dashboard/activity')).body)).toMatch(new RegExp(`${owner.email}\\s+invitation.created`));
  });

  it('lets an invitation expire after 72 hours, and a revoked one stop at once', async () => {
    t = await openTestApp();
    const owner = await member('owner');
    const first = LINK.exec((await owner.browser.follow(await invite(owner.browser, 'late@example.com', 'viewer'))).body)![0];
    const second = LINK.exec((await owner.browser.follow(await invite(owner.browser, 'revoked@example.com', 'viewer'))).body)![0];
    const [late, revoked] = await t.accounts.members.invitations(ACCOUNT_ID);
    const page = await owner.browser.get('/dashboard/members');
    const revokedNow = await owner.browser.post(`/dashboard/members/invitations/${revoked!.id}/revoke`, {});
    expect(text((await owner.browser.follow(revokedNow)).body)).toContain('The invitation is revoked');
    expect(page.body).toContain('revoked@example.com');
    expect((await new Browser(t.app).get(second.replace('http://localhost', ''))).statusCode).toBe(404);
    expect(await t.accounts.activity(ACCOUNT_ID, 1)).toMatchObject([{ action: 'invitation.revoked', target: revoked!.id }]);

    t.advance(72 * 3600 * 1000 - 60_000);
    expect((await new Browser(t.app).get(first.replace('http://localhost', ''))).statusCode).toBe(200);
    t.advance(60_000);
    const expired = await new Browser(t.app).get(first.replace('http://localhost', ''));
    expect(expired.statusCode).toBe(404);
    expect(text(expired.body)).toContain('This invitation was used already, was revoked, or has expired');
    // Still listed, as expired, until revoked.
    const again = await owner.browser.signIn(owner.email);
    expect(text((await owner.browser.follow(again)).body)).toBeDefined();
    expect(text((await owner.browser.get('/dashboard/members')).body)).toMatch(/late@example\.com\s+viewer\s+\S+\s+expired/);
    expect((await t.accounts.members.invitations(ACCOUNT_ID)).map((each) => each.id)).toEqual([late!.id]);
  });

  it('refuses what it cannot do with a clear message, changing nothing', async () => {
    t = await openTestApp();
    const owner = await member('owner');
    const dev = await member('developer');
    const snapshot = async () => ({ invitations: await t.accounts.members.invitations(ACCOUNT_ID), activity: await activity() });
    await invite(owner.browser, 'twice@example.com', 'viewer');
    const state = await snapshot();
    const cases: [string, string, number, string][] = [
      ['not an address', 'viewer', 422, 'An e-mail address is name@domain.tld'],
      [dev.email, 'viewer', 409, `${dev.email} is a member already`],
      ['TWICE@example.com', 'admin', 409, 'An invitation for twice@example.com stands already'],
    ];
    for (const [email, role, status, message] of cases) {
      const answer = await invite(owner.browser, email, role);
      expect([answer.statusCode, text(answer.body)], email).toEqual([status, expect.stringContaining(message)]);
    }
    // The owner's role is not offered: it passes only by a transfer.
    expect((await invite(owner.browser, 'boss@example.com', 'owner')).statusCode).toBe(422);
    expect(await snapshot()).toEqual(state);
  });

  it("changes a member's role: their sessions end at once, they are told by mail, and it is in the activity log", async () => {
    const mailer = recordingMailer();
    t = await openTestApp({}, { mailer });
    const owner = await member('owner');
    const dev = await member('developer');
    expect((await dev.browser.get('/dashboard/keys')).statusCode).toBe(200);
    await owner.browser.get(`/dashboard/members/${dev.id}`);
    const changed = await owner.browser.post(`/dashboard/members/${dev.id}/role`, { role: 'viewer' });
    expect(text((await owner.browser.follow(changed)).body)).toContain(
      `${dev.email} is now a viewer; their sessions have ended. They were told by e-mail.`,
    );
    const next = await dev.browser.get('/dashboard/keys');
    expect([next.statusCode, next.headers.location]).toEqual([303, '/dashboard/sign-in?next=%2Fdashboard%2Fkeys']);
    expect(mailer.sent).toEqual([
      expect.objectContaining({ to: dev.email, subject: 'Your role on the Nature Profile API dashboard changed' }),
    ]);
    expect(mailer.sent[0]!.text).toContain('from developer to viewer');
    expect(await t.accounts.activity(ACCOUNT_ID, 1)).toMatchObject([
      { action: 'member.role_changed', actor: { type: 'user', user_id: owner.id }, target: dev.id, detail: 'developer → viewer' },
    ]);
    // Signed in again, the viewer's pages show no form that changes something.
    await dev.browser.signIn(dev.email);
    expect(text((await dev.browser.get('/dashboard/keys')).body)).toContain(`${dev.email} · viewer`);
    expect(dev.browser.lastPage).not.toContain('Create a key');
  });

  it('mails an invitation when there is a mailer: the page says so and shows no link; the mail has one that works', async () => {
    const mailer = recordingMailer();
    t = await openTestApp({}, { mailer });
    const owner = await member('owner');
    const shown = await owner.browser.follow(await invite(owner.browser, 'mailed@example.com', 'admin'));
    expect(text(shown.body)).toContain('Invitation sent to mailed@example.com, as admin');
    expect(shown.body).not.toMatch(LINK);
    const [mail] = mailer.sent;
    expect(mail).toMatchObject({ to: 'mailed@example.com', subject: 'You are invited to the Nature Profile API dashboard' });
    expect(mail!.text).toContain(`${owner.email} invites you to join their account on the Nature Profile API dashboard as an admin`);
    const link = LINK.exec(mail!.text)![0];
    expect((await new Browser(t.app).get(link.replace('http://localhost', ''))).statusCode).toBe(200);
  });

  it('shows the link once when the mail server refuses the invitation', async () => {
    t = await openTestApp({}, { mailer: recordingMailer(true) });
    const owner = await member('owner');
    const shown = await owner.browser.follow(await invite(owner.browser, 'bounced@example.com', 'viewer'));
    expect(text(shown.body)).toContain('(the mail could not be sent): send them this link yourself');
    expect(shown.body).toMatch(LINK);
  });

  it('removes a member: their live session ends at once, their address is shredded, and they can no longer sign in', async () => {
    t = await openTestApp();
    const owner = await member('owner');
    const viewer = await member('viewer');
    expect((await viewer.browser.get('/dashboard/members')).statusCode).toBe(200);
    await owner.browser.get(`/dashboard/members/${viewer.id}`);
    const removed = await owner.browser.post(`/dashboard/members/${viewer.id}/remove`, { confirm: 'yes' });
    expect(text((await owner.browser.follow(removed)).body)).toContain('The member is removed');
    expect((await viewer.browser.get('/dashboard/members')).headers.location).toBe('/dashboard/sign-in?next=%2Fdashboard%2Fmembers');
    expect((await viewer.browser.signIn(viewer.email)).statusCode).toBe(401);
    expect(await t.envs.test.dataKeys.find(viewer.id)).toBeUndefined();
    expect(await t.accounts.activity(ACCOUNT_ID, 1)).toMatchObject([{ action: 'member.removed', target: viewer.id, detail: 'viewer' }]);
  });

  it('voids the invitations of a member removed or no longer allowed to invite: their links stop working', async () => {
    t = await openTestApp();
    const owner = await member('owner');
    const admin = await member('admin');
    const leaving = await member('admin');
    const byAdmin = LINK.exec((await admin.browser.follow(await invite(admin.browser, 'kept@example.com', 'viewer'))).body)![0];
    const byLeaving = LINK.exec((await leaving.browser.follow(await invite(leaving.browser, 'back-door@example.com', 'admin'))).body)![0];
    const opens = async (link: string) => (await new Browser(t.app).get(link.replace('http://localhost', ''))).statusCode;
    expect([await opens(byAdmin), await opens(byLeaving)]).toEqual([200, 200]);

    await owner.browser.get(`/dashboard/members/${leaving.id}`);
    await owner.browser.post(`/dashboard/members/${leaving.id}/remove`, { confirm: 'yes' });
    expect([await opens(byAdmin), await opens(byLeaving)]).toEqual([200, 404]);
    await owner.browser.get(`/dashboard/members/${admin.id}`);
    await owner.browser.post(`/dashboard/members/${admin.id}/role`, { role: 'developer' });
    expect(await opens(byAdmin)).toBe(404);
    // Sending its form anyway (with a signed-out page's CSRF token) changes nothing: no member is made.
    const joiner = new Browser(t.app);
    await joiner.get('/dashboard/sign-in');
    const token = new URL(byLeaving).searchParams.get('token')!;
    expect((await joiner.post('/dashboard/invitation', { token, password: NEW_PASSWORD, confirm: NEW_PASSWORD })).statusCode).toBe(404);
    expect((await t.accounts.users()).map((user) => user.role).sort()).toEqual(['developer', 'owner']);
    // Listed as void until revoked.
    const listed = text((await owner.browser.get('/dashboard/members')).body);
    expect(listed).toMatch(/back-door@example\.com\s+admin\s+a former member\s+void its sender may no longer invite/);
    expect(listed).toMatch(/kept@example\.com\s+viewer\s+\S+@example\.com\s+void its sender may no longer invite/);
  });

  it('keeps the last owner: they can neither be demoted nor leave; a second owner may', async () => {
    t = await openTestApp();
    const owner = await member('owner');
    const state = async () => ({ users: await t.accounts.users(), activity: await activity() });
    const before = await state();
    await owner.browser.get(`/dashboard/members/${owner.id}`);
    for (const [action, form] of [
      ['role', { role: 'admin' }],
      ['remove', { confirm: 'yes' }],
    ] as const) {
      await owner.browser.get(`/dashboard/members/${owner.id}`);
      const refused = await owner.browser.post(`/dashboard/members/${owner.id}/${action}`, form);
      expect([refused.statusCode, text(refused.body)]).toEqual([
        409,
        expect.stringContaining("The account's last owner keeps the owner role"),
      ]);
    }
    expect(await state()).toEqual(before);
    expect((await owner.browser.get('/dashboard/keys')).statusCode).toBe(200);

    const second = await member('owner');
    await owner.browser.get(`/dashboard/members/${owner.id}`);
    const left = await owner.browser.post(`/dashboard/members/${owner.id}/remove`, { confirm: 'yes' });
    expect(left.headers.location).toBe('/dashboard/sign-in?signed_out=1');
    expect((await t.accounts.users()).map((user) => user.id)).toEqual([second.id]);
  });

  it('lets an admin manage developers and viewers, never an owner, and never transfer ownership', async () => {
    t = await openTestApp();
    const owner = await member('owner');
    const admin = await member('admin');
    const dev = await member('developer');
    const page = await admin.browser.get('/dashboard/members');
    expect(page.body).toContain(`/dashboard/members/${dev.id}`);
    expect(page.body).not.toContain(`/dashboard/members/${owner.id}`);
    const ownerPage = await admin.browser.get(`/dashboard/members/${owner.id}`);
    expect([ownerPage.statusCode, text(ownerPage.body)]).toEqual([403, expect.stringContaining('Only owners change or remove an owner')]);
    await admin.browser.get(`/dashboard/members/${dev.id}`);
    // A form the page does not offer, crafted: refused by the rule, whatever the form says.
    const demote = await admin.browser.post(`/dashboard/members/${owner.id}/role`, { role: 'viewer', _once: 'A'.repeat(22) });
    expect([demote.statusCode, text(demote.body)]).toEqual([403, expect.stringContaining('Only owners change or remove an owner')]);
    const transfer = await admin.browser.post(`/dashboard/members/${dev.id}/transfer`, { confirm: 'yes' });
    expect([transfer.statusCode, text(transfer.body)]).toEqual([
      403,
      expect.stringContaining(
        "This is for members who may transfer the account's ownership, change or remove its owners, and require two-factor sign-in of every member: owners. Your role is admin",
      ),
    ]);
    expect((await t.accounts.user(owner.id))?.role).toBe('owner');
    await admin.browser.get(`/dashboard/members/${dev.id}`);
    const promoted = await admin.browser.post(`/dashboard/members/${dev.id}/role`, { role: 'admin' });
    expect(promoted.statusCode).toBe(303);
    expect((await t.accounts.user(dev.id))?.role).toBe('admin');
  });

  it('transfers ownership to a member: the former owner becomes an admin, and both sign in again', async () => {
    t = await openTestApp();
    const owner = await member('owner');
    const dev = await member('developer');
    await owner.browser.get(`/dashboard/members/${dev.id}`);
    const moved = await owner.browser.post(`/dashboard/members/${dev.id}/transfer`, { confirm: 'yes' });
    expect(moved.headers.location).toBe('/dashboard/sign-in?signed_out=1');
    expect((await t.accounts.users()).map((user) => [user.id, user.role])).toEqual([
      [owner.id, 'admin'],
      [dev.id, 'owner'],
    ]);
    for (const each of [owner, dev]) expect((await each.browser.get('/dashboard/keys')).statusCode).toBe(303);
    expect(await t.accounts.activity(ACCOUNT_ID, 1)).toMatchObject([
      { action: 'account.ownership_transferred', actor: { type: 'user', user_id: owner.id }, target: dev.id },
    ]);
  });

  it('says who may use each registered route, and lists no route that is not registered', async () => {
    t = await openTestApp();
    const registered = new Set(t.dashboardRoutes.map((route) => `${route.method === 'HEAD' ? 'GET' : route.method} ${route.url}`));
    expect([...registered].filter((route) => !(route in routeAccess))).toEqual([]);
    expect(Object.keys(routeAccess).filter((route) => !registered.has(route))).toEqual([]);
  });
});
