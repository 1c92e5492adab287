import { join } from 'node:path';
import { Secret } from 'otpauth';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteAccountStore } from '../../src/adapters/sqlite/account-store.js';
import { type AccountContext, createUser } from '../../src/commands/accounts.js';
import {
  beginEnrolment,
  confirmEnrolment,
  disableTwoFactor,
  mustEnrol,
  replaceRecoveryCodes,
  secretOf,
  setTwoFactorRequired,
  verifySecondFactor,
} from '../../src/commands/two-factor.js';
import { ACCOUNT_ID, type UserRecord } from '../../src/domain/accounts.js';
import { loadStoreConfig } from '../../src/settings/config.js';
import { openDataKeys } from '../../src/wiring/environments.js';
import { filesContaining } from '../support/byte-scan.js';
import { tempDir } from '../support/temp-dir.js';
import { codeOfStep, STEP_MS } from '../support/two-factor.js';

/** The middle of time step `step`: the moment the commands are asked at. */
const atStep = (step: number) => new Date(step * STEP_MS + STEP_MS / 2);
const STEP = 60_000_000;

describe('the two-factor commands', () => {
  let dir: ReturnType<typeof tempDir>;
  let context: AccountContext;
  let user: UserRecord;
  beforeEach(async () => {
    dir = tempDir();
    const accounts = new SqliteAccountStore(join(dir.path, 'keys.db'), 'FULL');
    const dataKeys = await openDataKeys(loadStoreConfig({ NATURE_DATA_DIR: dir.path }), 'test');
    context = { accounts, dataKeys };
    user = (await createUser(context, 'ana@example.com', 'correct horse battery staple', atStep(STEP))).user;
  });
  afterEach(async () => {
    await context.accounts.close();
    await context.dataKeys.close();
    dir.cleanup();
  });

  /** Enrolled at STEP: the secret and the recovery codes shown. */
  async function enrolled() {
    const secret = await secretOf(context, await beginEnrolment(context, user, atStep(STEP)));
    const codes = (await confirmEnrolment(context, user, codeOfStep(secret, STEP), atStep(STEP)))!;
    expect(codes).toHaveLength(10);
    return { secret, codes };
  }

  it("seals the secret with the user's data key: neither it nor its bytes are in any file, and a reload gives the same", async () => {
    const begun = await beginEnrolment(context, user, atStep(STEP));
    const secret = await secretOf(context, begun);
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(await beginEnrolment(context, user, atStep(STEP + 3))).toEqual(begun);
    const raw = Buffer.from(Secret.fromBase32(secret).bytes);
    expect(filesContaining(dir.path, [secret, raw])).toEqual([]);
  });

  it('turns on with a code of the secret only (not another, nor two steps off), once', async () => {
    const secret = await secretOf(context, await beginEnrolment(context, user, atStep(STEP)));
    expect(await confirmEnrolment(context, user, codeOfStep(secret, STEP + 2), atStep(STEP))).toBeUndefined();
    expect(await confirmEnrolment(context, user, codeOfStep('JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', STEP), atStep(STEP))).toBeUndefined();
    expect(await context.accounts.twoFactor.enabledUserIds()).toEqual([]);
    expect(await confirmEnrolment(context, user, codeOfStep(secret, STEP - 1), atStep(STEP))).toHaveLength(10);
    expect(await confirmEnrolment(context, user, codeOfStep(secret, STEP + 1), atStep(STEP))).toBeUndefined();
    expect(await context.accounts.twoFactor.enabledUserIds()).toEqual([user.id]);
  });

  it('refuses a code replayed within its window, and any older one, while later ones pass', async () => {
    const { secret } = await enrolled();
    // The code that turned it on is spent.
    expect(await verifySecondFactor(context, user, codeOfStep(secret, STEP), atStep(STEP))).toBeUndefined();
    expect(await verifySecondFactor(context, user, codeOfStep(secret, STEP + 1), atStep(STEP))).toBe('authenticator');
    expect(await verifySecondFactor(context, user, codeOfStep(secret, STEP + 1), atStep(STEP + 1))).toBeUndefined();
    expect(await verifySecondFactor(context, user, codeOfStep(secret, STEP + 1), atStep(STEP + 2))).toBeUndefined();
    expect(await verifySecondFactor(context, user, codeOfStep(secret, STEP + 2), atStep(STEP + 3))).toBe('authenticator');
    expect(await verifySecondFactor(context, user, codeOfStep(secret, STEP + 5), atStep(STEP + 3))).toBeUndefined();
    expect(await verifySecondFactor(context, user, codeOfStep(secret, STEP + 4), atStep(STEP + 3))).toBe('authenticator');
  });

  it('accepts one of the same code sent at once, never both', async () => {
    const { secret } = await enrolled();
    const code = codeOfStep(secret, STEP + 1);
    const answers = await Promise.all(Array.from({ length: 4 }, () => verifySecondFactor(context, user, code, atStep(STEP + 1))));
    expect(answers.filter((answer) => answer === 'authenticator')).toHaveLength(1);
  });

  it('takes each recovery code once, recorded with how many are left; new codes replace every old one', async () => {
    const { codes } = await enrolled();
    expect(await verifySecondFactor(context, user, codes[0]!, atStep(STEP))).toBe('recovery_code');
    expect(await verifySecondFactor(context, user, codes[0]!, atStep(STEP))).toBeUndefined();
    expect(await verifySecondFactor(context, user, codes[1]!.toLowerCase(), atStep(STEP))).toBe('recovery_code');
    expect((await context.accounts.activity(ACCOUNT_ID, 10)).map((entry) => `${entry.action} ${entry.detail}`)).toEqual(
      expect.arrayContaining(['user.recovery_code_used 9 left', 'user.recovery_code_used 8 left']),
    );
    const fresh = (await replaceRecoveryCodes(context.accounts, user, atStep(STEP)))!;
    expect(await verifySecondFactor(context, user, codes[2]!, atStep(STEP))).toBeUndefined();
    expect(await verifySecondFactor(context, user, fresh[2]!, atStep(STEP))).toBe('recovery_code');
    // Kept only as hashes.
    expect(filesContaining(dir.path, [...codes, ...fresh])).toEqual([]);
  });

  it('passes nothing once turned off; the operator may turn it off too, recorded as theirs', async () => {
    const { secret, codes } = await enrolled();
    expect(await disableTwoFactor(context.accounts, { type: 'operator' }, user, atStep(STEP))).toBe(true);
    expect(await verifySecondFactor(context, user, codeOfStep(secret, STEP + 1), atStep(STEP + 1))).toBeUndefined();
    expect(await verifySecondFactor(context, user, codes[0]!, atStep(STEP + 1))).toBeUndefined();
    expect(await replaceRecoveryCodes(context.accounts, user, atStep(STEP))).toBeUndefined();
    const [entry] = await context.accounts.activity(ACCOUNT_ID, 1);
    expect(entry).toMatchObject({
      actor: { type: 'operator' },
      action: 'user.two_factor_disabled',
      target: user.id,
      detail: 'by the operator',
    });
  });

  it('leads a member to enrol once the account requires it, until theirs is on', async () => {
    expect(await mustEnrol(context.accounts, user)).toBe(false);
    expect(await setTwoFactorRequired(context.accounts, user, true, atStep(STEP))).toBe(true);
    expect(await setTwoFactorRequired(context.accounts, user, true, atStep(STEP))).toBe(false);
    expect(await mustEnrol(context.accounts, user)).toBe(true);
    await beginEnrolment(context, user, atStep(STEP));
    expect(await mustEnrol(context.accounts, user)).toBe(true);
    await enrolled();
    expect(await mustEnrol(context.accounts, user)).toBe(false);
  });
});
