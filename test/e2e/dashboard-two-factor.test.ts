import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUser, findUser } from '../../src/commands/accounts.js';
import { qrCode } from '../../src/dashboard/qr-code.js';
import { CODE_FAILURES_PER_USER } from '../../src/dashboard/second-factor.js';
import { ACCOUNT_ID } from '../../src/domain/accounts.js';
import { totpUri } from '../../src/domain/two-factor.js';
import { runCliInProcess } from '../support/cli.js';
import { Browser, csrfOf, dashboardUser, PASSWORD } from '../support/dashboard.js';
import { openTestApp } from '../support/test-app.js';
import { codeOfStep, recoveryCodesOnPage, STEP_MS, secretOnPage, stepOf } from '../support/two-factor.js';

const CODE_PAGE = '/dashboard/sign-in/two-factor';

/**
 * The app, with its clock as the test moves it (TestApp.advance). A check of a code first moves the clock to the
 * middle of a time step (`at`), so it knows the step the app is in for 15 s, whatever the real clock's boundaries.
 */
async function twoFactorApp() {
  const t = await openTestApp();
  let offset = 0;
  const now = () => new Date(Date.now() + offset);
  const advance = (ms: number) => {
    t.advance(ms);
    offset += ms;
  };
  /** To the middle of time step `step`, ahead of the app's clock. */
  const at = (step: number) => {
    const ms = step * STEP_MS + STEP_MS / 2 - now().getTime();
    if (ms < 0) throw new Error(`step ${step} is behind the app's clock`);
    advance(ms);
  };
  return { t, now, advance, at, nextStep: () => stepOf(now()) + 1 };
}

type App = Awaited<ReturnType<typeof twoFactorApp>>;

/** A new owner signed in who sets up two-factor sign-in with the setup key the page shows: its secret, recovery codes and the step spent. */
async function enrolled(app: App, email?: string) {
  const who = email ?? (await dashboardUser(app.t));
  const browser = new Browser(app.t.app);
  expect((await browser.signIn(who)).headers.location).toBe('/dashboard/keys');
  await browser.get('/dashboard/security');
  const started = await browser.post('/dashboard/security/two-factor/start', {});
  const pending = await browser.follow(started);
  const secret = secretOnPage(pending.body);
  expect(pending.body).toContain('<svg xmlns="http://www.w3.org/2000/svg"');
  const step = app.nextStep();
  app.at(step);
  const turnedOn = await browser.follow(await browser.post('/dashboard/security/two-factor/confirm', { code: codeOfStep(secret, step) }));
  const codes = recoveryCodesOnPage(turnedOn.body);
  expect(codes).toHaveLength(10);
  // That step's code is spent: the next sign-in takes a later one.
  return { email: who, browser, secret, codes, step };
}

/** The password, then `code` on the page that asks for it: the answer to the code. */
async function signInWith(app: App, email: string, code: string, browser = new Browser(app.t.app)) {
  const password = await browser.signIn(email);
  expect(password.statusCode).toBe(303);
  expect(password.headers.location).toBe(`${CODE_PAGE}?next=%2Fdashboard%2Fkeys`);
  await browser.follow(password);
  return { browser, answer: await browser.post(CODE_PAGE, { code }) };
}

const actions = async (app: App) =>
  (await app.t.accounts.activity(ACCOUNT_ID, 200)).map((entry) => `${entry.action} ${entry.detail}`.trim());

describe('two-factor sign-in in the dashboard', () => {
  let app: App;
  beforeAll(async () => {
    app = await twoFactorApp();
  });
  afterAll(() => app.t.close());

  it('is set up with a code from the setup key shown: recovery codes shown once, the key never again', async () => {
    const email = await dashboardUser(app.t);
    const browser = new Browser(app.t.app);
    await browser.signIn(email);
    // A session elsewhere, begun with the password alone (one that leaked, say).
    const elsewhere = new Browser(app.t.app);
    await elsewhere.signIn(email);
    expect((await elsewhere.get('/dashboard/keys')).statusCode).toBe(200);
    const off = await browser.get('/dashboard/security');
    expect(off.body).toContain('Off: you sign in with your password alone.');
    const pending = await browser.follow(await browser.post('/dashboard/security/two-factor/start', {}));
    const secret = secretOnPage(pending.body);
    // The QR code carries the otpauth address of that key, for that person.
    expect(pending.body).toContain((await qrCode(totpUri(secret, email), 'QR code with the setup key for your authenticator app')).text);
    // A reload shows the same key (the QR code scanned stays good); a code of another key changes nothing.
    expect(secretOnPage((await browser.get('/dashboard/security')).body)).toBe(secret);
    const wrong = await browser.post('/dashboard/security/two-factor/confirm', {
      code: codeOfStep('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', stepOf(app.now())),
    });
    expect(wrong.statusCode).toBe(422);
    expect(wrong.body).toContain('That code is not the one your app shows now');
    expect(secretOnPage(wrong.body)).toBe(secret);

    const confirmed = await browser.post('/dashboard/security/two-factor/confirm', { code: codeOfStep(secret, stepOf(app.now())) });
    const on = await browser.follow(confirmed);
    const codes = recoveryCodesOnPage(on.body);
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    expect(on.body).toContain('Two-factor sign-in is on. Your recovery codes:');
    // Turning it on ends the person's other sessions, and keeps the one that turned it on.
    expect((await elsewhere.get('/dashboard/keys')).headers.location).toMatch(/^\/dashboard\/sign-in\?next=/);
    expect((await browser.get('/dashboard/keys')).statusCode).toBe(200);
    const reloaded = await browser.get(String(confirmed.headers.location));
    expect(recoveryCodesOnPage(reloaded.body)).toEqual([]);
    expect(reloaded.body).toContain('10 of 10 recovery codes left');
    expect(reloaded.body).not.toContain(secret.slice(0, 4));
    expect(await actions(app)).toContain('user.two_factor_enabled authenticator app, 10 recovery codes');
    // Neither the key nor a recovery code is in the log.
    expect(app.t.logs.filter((line) => line.includes(secret) || codes.some((code) => line.includes(code)))).toEqual([]);
  });

  it('asks for a code after the password; until then the browser has no session and reaches no page', async () => {
    const { email, secret, step } = await enrolled(app);
    const browser = new Browser(app.t.app);
    const password = await browser.signIn(email);
    expect(password.headers.location).toBe(`${CODE_PAGE}?next=%2Fdashboard%2Fkeys`);
    expect([...browser.cookies.keys()].sort()).toEqual(['nature_csrf', 'nature_pending_sign_in']);
    expect(String(password.headers['set-cookie'])).toMatch(
      /nature_pending_sign_in=[^;]+; Max-Age=600; Path=\/dashboard; HttpOnly; SameSite=Strict/,
    );
    for (const path of ['/dashboard/keys', '/dashboard/security', '/dashboard/activity'])
      expect((await browser.get(path)).headers.location).toMatch(/^\/dashboard\/sign-in\?next=/);
    const asked = await browser.get(`${CODE_PAGE}?next=%2Fdashboard%2Fkeys`);
    expect(asked.body).toContain('Now enter the six-digit code your authenticator app shows');

    const wrong = await browser.post(CODE_PAGE, { code: '000000' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.body).toContain('That code is not right, or was used already.');
    app.at(step + 1);
    const signedIn = await browser.post(CODE_PAGE, { code: codeOfStep(secret, step + 1), next: '/dashboard/activity' });
    expect(signedIn.statusCode).toBe(303);
    expect(signedIn.headers.location).toBe('/dashboard/activity');
    expect(browser.cookies.has('nature_session')).toBe(true);
    expect(browser.cookies.has('nature_pending_sign_in')).toBe(false);
    expect((await browser.get('/dashboard/keys')).statusCode).toBe(200);
    expect(await actions(app)).toContain('user.signed_in with an authenticator code');
  });

  it("asks for the code after a set-up link's new password too; a reset ends sign-ins still waiting for their code", async () => {
    const { email, secret, step } = await enrolled(app);
    // Someone with the password waits on the code page when the operator issues the person a set-up link.
    const waiting = new Browser(app.t.app);
    expect((await waiting.signIn(email)).headers.location).toBe(`${CODE_PAGE}?next=%2Fdashboard%2Fkeys`);
    const reset = await runCliInProcess(['users', 'reset', '--email', email], { NATURE_DATA_DIR: app.t.dataDir });
    expect(reset.status, reset.stderr).toBe(0);
    const token = /\/dashboard\/setup\?token=([\w-]{43})/.exec(reset.stdout)![1]!;
    app.at(step + 1);
    expect((await waiting.post(CODE_PAGE, { code: codeOfStep(secret, step + 1) })).statusCode).toBe(401);
    expect(waiting.cookies.has('nature_session')).toBe(false);

    // The link proves the mailbox, not the phone: a new password, then the code, before any session starts.
    const linked = new Browser(app.t.app);
    await linked.get(`/dashboard/setup?token=${token}`);
    const chosen = 'another passphrase of words';
    const set = await linked.post('/dashboard/setup', { token, password: chosen, confirm: chosen });
    expect(set.headers.location).toBe(`${CODE_PAGE}?next=%2Fdashboard%2Fkeys`);
    expect(linked.cookies.has('nature_session')).toBe(false);
    expect((await linked.get('/dashboard/keys')).headers.location).toMatch(/^\/dashboard\/sign-in\?next=/);
    await linked.get(`${CODE_PAGE}?next=%2Fdashboard%2Fkeys`);
    const signedIn = await linked.post(CODE_PAGE, { code: codeOfStep(secret, step + 1) });
    expect(signedIn.headers.location).toBe('/dashboard/keys');
    expect((await linked.get('/dashboard/keys')).statusCode).toBe(200);
  });

  it('refuses a code used before and an older one, accepts one step of drift either way, not two', async () => {
    const { email, secret, step } = await enrolled(app);
    const signIn = async (code: number) => (await signInWith(app, email, codeOfStep(secret, code))).answer;
    // Turning it on spent this step's code.
    expect((await signIn(step)).statusCode).toBe(401);
    app.at(step + 1);
    expect((await signIn(step + 1)).statusCode).toBe(303);
    const replayed = await signIn(step + 1);
    expect(replayed.statusCode).toBe(401);
    expect(replayed.body).toContain('was used already');
    expect((await signIn(step)).statusCode).toBe(401);

    // One step either side of the app's passes; two do not, before or after.
    app.at(step + 4);
    expect((await signIn(step + 3)).statusCode).toBe(303);
    expect((await signIn(step + 5)).statusCode).toBe(303);
    // Twenty minutes on, the wrong codes above are out of the count of wrong ones (second-factor.ts).
    app.at(step + 40);
    expect((await signIn(step + 38)).statusCode).toBe(401);
    expect((await signIn(step + 42)).statusCode).toBe(401);
    expect((await signIn(step + 40)).statusCode).toBe(303);
  });

  it('takes a recovery code once (in any case, with or without dashes), and not twice', async () => {
    const { email, codes } = await enrolled(app);
    const first = codes[3]!;
    const used = await signInWith(app, email, first.toLowerCase().replace(/-/g, ' '));
    expect(used.answer.headers.location).toBe('/dashboard/keys');
    expect((await signInWith(app, email, first)).answer.statusCode).toBe(401);
    expect((await signInWith(app, email, codes[4]!)).answer.statusCode).toBe(303);
    const security = await (await signInWith(app, email, codes[5]!)).browser.get('/dashboard/security');
    expect(security.body).toContain('7 of 10 recovery codes left');
    expect(await actions(app)).toEqual(expect.arrayContaining(['user.recovery_code_used 9 left', 'user.signed_in with a recovery code']));
  });

  it(`refuses every code past ${CODE_FAILURES_PER_USER} wrong ones in 15 minutes, with 429, until the window moves on`, async () => {
    const { email, secret, step } = await enrolled(app);
    const { browser } = await signInWith(app, email, '123-456');
    for (let i = 1; i < CODE_FAILURES_PER_USER; i += 1) expect((await browser.post(CODE_PAGE, { code: '12345' })).statusCode).toBe(401);
    app.at(step + 1);
    const right = codeOfStep(secret, step + 1);
    const throttled = await browser.post(CODE_PAGE, { code: right });
    expect(throttled.statusCode).toBe(429);
    expect(throttled.headers['retry-after']).toBe('900');
    expect(throttled.body).toContain('Too many wrong codes. Wait 15 minutes');
    expect(browser.cookies.has('nature_session')).toBe(false);

    app.advance(15 * 60 * 1000);
    // The waiting sign-in ended meanwhile (10 minutes): the password is asked for again, then the code passes.
    const later = app.nextStep();
    app.at(later);
    const ended = await browser.post(CODE_PAGE, { code: codeOfStep(secret, later) });
    expect(ended.statusCode).toBe(401);
    expect(ended.body).toContain('This sign-in has ended');
    expect((await signInWith(app, email, codeOfStep(secret, later))).answer.statusCode).toBe(303);
  });

  it('spends the waiting sign-in with its code: sent again, it starts no second session', async () => {
    const { email, secret, step } = await enrolled(app);
    const browser = new Browser(app.t.app);
    await browser.follow(await browser.signIn(email));
    app.at(step + 1);
    const waiting = browser.cookies.get('nature_pending_sign_in')!;
    expect((await browser.post(CODE_PAGE, { code: codeOfStep(secret, step + 1) })).statusCode).toBe(303);
    const copy = new Browser(app.t.app);
    const form = (await copy.get('/dashboard/sign-in')).body;
    copy.cookies.set('nature_pending_sign_in', waiting);
    expect((await copy.get(CODE_PAGE)).statusCode).toBe(401);
    app.at(step + 2);
    const again = await copy.post(CODE_PAGE, { code: codeOfStep(secret, step + 2) }, csrfOf(form));
    expect(again.statusCode).toBe(401);
    expect(again.body).toContain('This sign-in has ended');
    expect(copy.cookies.has('nature_session')).toBe(false);
    expect(browser.cookies.has('nature_session')).toBe(true);
  });

  it('shows new recovery codes and turns two-factor off only after the password and a current code', async () => {
    const { email, browser, codes } = await enrolled(app);
    await browser.get('/dashboard/security');
    const wrongPassword = await browser.post('/dashboard/security/recovery-codes', {
      password: 'not the password at all',
      code: codes[0]!,
    });
    expect(wrongPassword.statusCode).toBe(401);
    expect(wrongPassword.body).toContain('That password and code do not match: nothing was changed.');
    expect(recoveryCodesOnPage(wrongPassword.body)).toEqual([]);
    const wrongCode = await browser.post('/dashboard/security/two-factor/disable', { password: PASSWORD, code: '000000' });
    expect(wrongCode.statusCode).toBe(401);

    const renewed = await browser.follow(await browser.post('/dashboard/security/recovery-codes', { password: PASSWORD, code: codes[0]! }));
    const fresh = recoveryCodesOnPage(renewed.body);
    expect(fresh).toHaveLength(10);
    expect(renewed.body).toContain('Your new recovery codes: the old ones no longer work.');
    expect((await signInWith(app, email, codes[1]!)).answer.statusCode).toBe(401);
    expect((await signInWith(app, email, fresh[0]!)).answer.statusCode).toBe(303);

    await browser.get('/dashboard/security');
    const off = await browser.post('/dashboard/security/two-factor/disable', { password: PASSWORD, code: fresh[1]! });
    expect(off.headers.location).toBe('/dashboard/security?done=off');
    expect((await browser.follow(off)).body).toContain('Two-factor sign-in is off');
    expect((await new Browser(app.t.app).signIn(email)).headers.location).toBe('/dashboard/keys');
    const user = (await findUser({ accounts: app.t.accounts, dataKeys: app.t.envs.test.dataKeys }, email))!;
    const recorded = (await app.t.accounts.activity(ACCOUNT_ID, 200))
      .filter((entry) => entry.target === user.id)
      .map((entry) => entry.action);
    expect(recorded).toEqual(
      expect.arrayContaining(['user.two_factor_enabled', 'user.recovery_codes_replaced', 'user.two_factor_disabled']),
    );
  });

  it('is turned off by the operator for a person who lost their phone and codes: the password alone signs them in again', async () => {
    const { email } = await enrolled(app);
    const off = await runCliInProcess(['users', 'disable-two-factor', '--email', email, '--json'], { NATURE_DATA_DIR: app.t.dataDir });
    expect(off.status, off.stderr).toBe(0);
    expect(JSON.parse(off.stdout)).toMatchObject({ email, two_factor: 'off' });
    expect((await new Browser(app.t.app).signIn(email)).headers.location).toBe('/dashboard/keys');
    const again = await runCliInProcess(['users', 'disable-two-factor', '--email', email], { NATURE_DATA_DIR: app.t.dataDir });
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('has no two-factor sign-in: nothing to turn off');
    expect(await actions(app)).toContain('user.two_factor_disabled by the operator');
  });
});

describe("the account's requirement of two-factor sign-in", () => {
  let app: App;
  beforeAll(async () => {
    app = await twoFactorApp();
  });
  afterAll(() => app.t.close());

  it('is set by an owner who uses it, and leads every member without it to set it up before anything else', async () => {
    const ownerEmail = await dashboardUser(app.t);
    const owner = new Browser(app.t.app);
    await owner.signIn(ownerEmail);
    await owner.get('/dashboard/security');
    const first = await owner.post('/dashboard/security/requirement', { required: 'yes' });
    expect(first.statusCode).toBe(409);
    expect(first.body).toContain('Turn on two-factor sign-in for yourself first');
    expect(await app.t.accounts.twoFactor.required(ACCOUNT_ID)).toBe(false);

    // A member signed in before the requirement, and one who signs in after it.
    const memberEmail = `member-${Math.random().toString(36).slice(2)}@example.com`;
    await createUser({ accounts: app.t.accounts, dataKeys: app.t.envs.test.dataKeys }, memberEmail, PASSWORD, new Date());
    const early = new Browser(app.t.app);
    await early.signIn(memberEmail);
    expect((await early.get('/dashboard/keys')).statusCode).toBe(200);

    const { browser: enrolledOwner, secret: ownerSecret } = await enrolled(app, ownerEmail);
    await enrolledOwner.get('/dashboard/security');
    const required = await enrolledOwner.post('/dashboard/security/requirement', { required: 'yes' });
    expect(required.headers.location).toBe('/dashboard/security?done=required');
    expect((await enrolledOwner.follow(required)).body).toContain('Every member now signs in with a code');
    expect(await actions(app)).toContain('account.two_factor_required every member signs in with a code');

    const late = new Browser(app.t.app);
    expect((await late.signIn(memberEmail)).headers.location).toBe('/dashboard/keys');
    for (const member of [early, late]) {
      for (const path of ['/dashboard/keys', '/dashboard/activity', '/dashboard/sandbox/webhooks'])
        expect((await member.get(path)).headers.location).toBe('/dashboard/security');
      const led = await member.get('/dashboard/security');
      expect(led.body).toContain('This account requires two-factor sign-in: set it up here to go on');
    }
    // A form elsewhere changes nothing either.
    const keysBefore = (await app.t.keys.list()).length;
    const created = await late.post('/dashboard/keys', {
      name: 'sneaky',
      environment: 'test',
      type: 'sk',
      scopes: ['nature:read'],
      origins: '',
    });
    expect(created.headers.location).toBe('/dashboard/security');
    expect((await app.t.keys.list()).length).toBe(keysBefore);

    await late.get('/dashboard/security');
    const pending = await late.follow(await late.post('/dashboard/security/two-factor/start', {}));
    const secret = secretOnPage(pending.body);
    const step = app.nextStep();
    app.at(step);
    await late.follow(await late.post('/dashboard/security/two-factor/confirm', { code: codeOfStep(secret, step) }));
    expect((await late.get('/dashboard/keys')).statusCode).toBe(200);
    // The session begun before, with the password alone, ended when the member turned it on.
    expect((await early.get('/dashboard/keys')).headers.location).toMatch(/^\/dashboard\/sign-in\?next=/);

    // Stopping it weakens every member's sign-in: the owner's password and a current code again, first.
    await enrolledOwner.get('/dashboard/security');
    const unconfirmed = await enrolledOwner.post('/dashboard/security/requirement', { required: 'no', password: PASSWORD, code: '000000' });
    expect(unconfirmed.statusCode).toBe(401);
    expect(await app.t.accounts.twoFactor.required(ACCOUNT_ID)).toBe(true);
    expect((await enrolledOwner.post('/dashboard/security/requirement', { required: 'no' })).statusCode).toBe(422);
    const stepNow = app.nextStep();
    app.at(stepNow);
    await enrolledOwner.get('/dashboard/security');
    const optional = await enrolledOwner.post('/dashboard/security/requirement', {
      required: 'no',
      password: PASSWORD,
      code: codeOfStep(ownerSecret, stepNow),
    });
    expect(optional.headers.location).toBe('/dashboard/security?done=optional');
    expect(await app.t.accounts.twoFactor.required(ACCOUNT_ID)).toBe(false);
    expect(await actions(app)).toContain('account.two_factor_optional two-factor sign-in left to each member');
  });
});
