import { createHmac } from 'node:crypto';
import {
  ACCOUNT_ID,
  type Actor,
  type ApplicationRecord,
  activity,
  newToken,
  newUserId,
  normaliseEmail,
  passwordHash,
  type Role,
  SETUP_LINK_MS,
  tokenHash,
  type UserRecord,
} from '../domain/accounts.js';
import type { AccountStore } from '../ports/account-store.js';
import type { DataKeyStore } from '../ports/data-keys.js';
import { open, seal } from '../privacy/pii-envelope.js';

/**
 * What the account's commands need: its store, and the data keys that seal each user's address (the sandbox's:
 * a user's key is made and destroyed as a subject's is, and the master key wraps it the same way).
 */
export interface AccountContext {
  accounts: AccountStore;
  dataKeys: DataKeyStore;
}

/** The field name a sealed address is bound to (with its owner's id): a user's, or an invitation's. */
export const EMAIL_FIELD = 'email';

/** The keyed hash sign-in looks a user up by: the plain address is never stored, nor an unkeyed hash of it. */
export async function emailIndex(context: AccountContext, email: string): Promise<string> {
  const secret = await context.dataKeys.environmentSecret();
  return createHmac('sha256', secret)
    .update(`nature-user-email:${normaliseEmail(email)}`)
    .digest('hex');
}

export async function emailOf(context: AccountContext, user: UserRecord): Promise<string> {
  const key = await context.dataKeys.find(user.id);
  return key === undefined ? '(erased)' : (open(key, user.email_sealed, user.id, EMAIL_FIELD) as string);
}

export async function findUser(context: AccountContext, email: string): Promise<UserRecord | undefined> {
  return context.accounts.userByEmailIndex(await emailIndex(context, email));
}

export class UserExistsError extends Error {
  override readonly name = 'UserExistsError';
}

/**
 * A new member of the account, made by the operator (an owner, unless `role` says otherwise): with a password
 * (already checked by the caller), or with a one-time set-up link's token, which is returned once and stored only as a hash.
 */
export async function createUser(
  context: AccountContext,
  email: string,
  password: string | undefined,
  now: Date,
  role: Role = 'owner',
): Promise<{ user: UserRecord; setupToken: string | undefined }> {
  const index = await emailIndex(context, email);
  if ((await context.accounts.userByEmailIndex(index)) !== undefined) throw new UserExistsError(`a user with ${email} exists already`);
  const id = newUserId();
  const key = await context.dataKeys.keyFor(id);
  const setupToken = password === undefined ? newToken() : undefined;
  const user: UserRecord = {
    id,
    account_id: ACCOUNT_ID,
    role,
    email_sealed: seal(key, normaliseEmail(email), id, EMAIL_FIELD),
    email_index: index,
    password_hash: password === undefined ? null : await passwordHash(password),
    setup_token_hash: setupToken === undefined ? null : tokenHash(setupToken),
    setup_expires_at: setupToken === undefined ? null : new Date(now.getTime() + SETUP_LINK_MS).toISOString(),
    created_at: now.toISOString(),
  };
  await context.accounts.insertUser(user, activity({ type: 'operator' }, 'user.created', id, role, now));
  return { user, setupToken };
}

/** A new set-up link for a user who lost theirs or their password; every session of theirs ends. */
export async function resetUser(context: AccountContext, user: UserRecord, now: Date): Promise<string> {
  const token = newToken();
  const issued = activity({ type: 'operator' }, 'user.reset', user.id, 'set-up link issued', now);
  await context.accounts.setSetupToken(user.id, tokenHash(token), new Date(now.getTime() + SETUP_LINK_MS).toISOString(), issued);
  return token;
}

export interface ApplicationInput {
  organisation: string;
  intended_use: string;
  expected_monthly_completions: number;
}

/** Submits (or, after a rejection, submits again) the account's application; an approved one stays approved. */
export async function submitApplication(
  accounts: AccountStore,
  input: ApplicationInput,
  userId: string,
  now: Date,
): Promise<ApplicationRecord> {
  const current = await accounts.application(ACCOUNT_ID);
  if (current?.status === 'approved') return current;
  const application: ApplicationRecord = {
    account_id: ACCOUNT_ID,
    status: 'pending',
    ...input,
    submitted_by: userId,
    submitted_at: now.toISOString(),
    decided_at: null,
    reason: null,
  };
  await accounts.putApplication(
    application,
    activity({ type: 'user', user_id: userId }, 'application.submitted', ACCOUNT_ID, input.organisation, now),
  );
  return application;
}

/** The operator's decision on the pending application; undefined when none is pending. */
export async function decideApplication(
  accounts: AccountStore,
  decision: { status: 'approved' | 'rejected'; reason: string | null },
  now: Date,
): Promise<ApplicationRecord | undefined> {
  const actor: Actor = { type: 'operator' };
  const entry = activity(actor, `application.${decision.status}`, ACCOUNT_ID, decision.reason ?? '', now);
  // Recorded only when a pending application was decided.
  return accounts.decideApplication(ACCOUNT_ID, { ...decision, at: now.toISOString() }, entry);
}

/**
 * Whether `actor` may see and act on production resources (specification §5.10): the operator, who approves
 * applications, always; a dashboard user once the account's application is approved.
 */
export async function hasProductionAccess(accounts: AccountStore, actor: Actor): Promise<boolean> {
  return actor.type === 'operator' || (await accounts.application(ACCOUNT_ID))?.status === 'approved';
}
