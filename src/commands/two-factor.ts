import { type Actor, activity, type UserRecord } from '../domain/accounts.js';
import {
  isRecoveryCodeShape,
  matchingStep,
  newRecoveryCodes,
  newTotpSecret,
  recoveryCodeHash,
  type TwoFactorRecord,
  twoFactorActions,
} from '../domain/two-factor.js';
import type { AccountStore } from '../ports/account-store.js';
import { open, seal } from '../privacy/pii-envelope.js';
import type { AccountContext } from './accounts.js';

/** The field the secret is sealed under, with the user's data key (as their address is, under `email`). */
const SECRET_FIELD = 'totp_secret';

const userActor = (user: UserRecord): Actor => ({ type: 'user', user_id: user.id });

/** The user's enrolment, begun if they have none: a fresh secret, sealed before it is stored. */
export async function beginEnrolment(context: AccountContext, user: UserRecord, now: Date): Promise<TwoFactorRecord> {
  const existing = await context.accounts.twoFactor.get(user.id);
  if (existing !== undefined) return existing;
  const key = await context.dataKeys.keyFor(user.id);
  return context.accounts.twoFactor.begin({
    user_id: user.id,
    secret_sealed: seal(key, newTotpSecret(), user.id, SECRET_FIELD),
    created_at: now.toISOString(),
    enabled_at: null,
    last_step: null,
    recovery_code_hashes: [],
  });
}

/** The enrolment's secret, opened for a QR code or a code's check; never stored or logged so. */
export async function secretOf(context: AccountContext, record: TwoFactorRecord): Promise<string> {
  return open(await context.dataKeys.keyFor(record.user_id), record.secret_sealed, record.user_id, SECRET_FIELD) as string;
}

/**
 * Turns the user's pending enrolment on when `code` is the secret's now (its step spent, so it does not sign in
 * after): the ten recovery codes, to be shown once; undefined when the code is not right or nothing is pending.
 */
export async function confirmEnrolment(context: AccountContext, user: UserRecord, code: string, now: Date): Promise<string[] | undefined> {
  const record = await context.accounts.twoFactor.get(user.id);
  if (record === undefined || record.enabled_at !== null) return undefined;
  const step = matchingStep(await secretOf(context, record), code, now);
  if (step === undefined) return undefined;
  const codes = newRecoveryCodes();
  const entry = activity(userActor(user), twoFactorActions.enabled, user.id, 'authenticator app, 10 recovery codes', now);
  const hashes = codes.map((each) => recoveryCodeHash(user.id, each));
  return (await context.accounts.twoFactor.enable(user.id, step, hashes, now.toISOString(), entry)) ? codes : undefined;
}

/**
 * Whether `code` is the user's second factor now: an authenticator code of a step not used before (± one step of
 * drift), or a recovery code not used before, which is spent. Undefined when it is neither, or two-factor is off.
 */
export async function verifySecondFactor(
  context: AccountContext,
  user: UserRecord,
  code: string,
  now: Date,
): Promise<'authenticator' | 'recovery_code' | undefined> {
  const record = await context.accounts.twoFactor.get(user.id);
  if (record?.enabled_at == null) return undefined;
  const step = matchingStep(await secretOf(context, record), code, now);
  if (step !== undefined) return (await context.accounts.twoFactor.acceptStep(user.id, step)) ? 'authenticator' : undefined;
  if (!isRecoveryCodeShape(code)) return undefined;
  const left = record.recovery_code_hashes.length - 1;
  const entry = activity(userActor(user), twoFactorActions.recoveryCodeUsed, user.id, `${left} left`, now);
  return (await context.accounts.twoFactor.spendRecoveryCode(user.id, recoveryCodeHash(user.id, code), entry))
    ? 'recovery_code'
    : undefined;
}

/** Ten new recovery codes in place of every old one, to be shown once; undefined when two-factor is off. */
export async function replaceRecoveryCodes(accounts: AccountStore, user: UserRecord, now: Date): Promise<string[] | undefined> {
  const codes = newRecoveryCodes();
  const entry = activity(userActor(user), twoFactorActions.recoveryCodesReplaced, user.id, '10 new recovery codes', now);
  const hashes = codes.map((each) => recoveryCodeHash(user.id, each));
  return (await accounts.twoFactor.replaceRecoveryCodes(user.id, hashes, entry)) ? codes : undefined;
}

/** Turns the user's two-factor sign-in off (by themselves, or by the operator for one who lost their device); false when it was not there. */
export function disableTwoFactor(accounts: AccountStore, actor: Actor, user: UserRecord, now: Date): Promise<boolean> {
  const by = actor.type === 'operator' ? 'by the operator' : '';
  return accounts.twoFactor.disable(user.id, activity(actor, twoFactorActions.disabled, user.id, by, now));
}

/** Requires two-factor sign-in of every member of the user's account, or stops requiring it; false when it stood so already. */
export function setTwoFactorRequired(accounts: AccountStore, user: UserRecord, required: boolean, now: Date): Promise<boolean> {
  const entry = required
    ? activity(userActor(user), twoFactorActions.required, user.account_id, 'every member signs in with a code', now)
    : activity(userActor(user), twoFactorActions.optional, user.account_id, 'two-factor sign-in left to each member', now);
  return accounts.twoFactor.setRequired(user.account_id, required, entry);
}

/** Whether the user's two-factor sign-in is on (confirmed): they sign in with a code after the password. */
export async function hasTwoFactor(accounts: AccountStore, user: UserRecord): Promise<boolean> {
  return (await accounts.twoFactor.get(user.id))?.enabled_at != null;
}

/** Whether the user must enrol before anything else: their account requires two-factor sign-in, and theirs is not on. */
export async function mustEnrol(accounts: AccountStore, user: UserRecord): Promise<boolean> {
  return (await accounts.twoFactor.required(user.account_id)) && !(await hasTwoFactor(accounts, user));
}
