import { type Actor, activity } from '../domain/accounts.js';
import {
  type ApiKeyRecord,
  keyHint,
  type MintRequest,
  mintKey,
  mintProblem,
  type RollExpiry,
  rollExpiries,
  rollingAt,
} from '../domain/api-keys.js';
import type { AccountStore } from '../ports/account-store.js';
import type { KeyStore } from '../ports/key-store.js';
import { hasProductionAccess } from './accounts.js';

/** A command on keys refused by a rule of keys: the message says which, for the person who asked. */
export class KeyRuleError extends Error {
  override readonly name = 'KeyRuleError';
}

export interface KeyContext {
  keys: KeyStore;
  accounts: AccountStore;
}

const described = (record: ApiKeyRecord) => `${keyHint(record, record.last4)} "${record.name}"`;

/** Production keys are minted, rotated and revoked only by those with production access. */
async function requireAccessTo(context: KeyContext, actor: Actor, environment: ApiKeyRecord['environment']) {
  if (environment === 'live' && !(await hasProductionAccess(context.accounts, actor)))
    throw new KeyRuleError('Production keys need an approved application for production access.');
}

/** Mints a key as `actor`: a production key only with production access (the operator always has it). */
export async function mintApiKey(context: KeyContext, actor: Actor, request: MintRequest, now: Date) {
  const problem = mintProblem(request);
  if (problem !== undefined) throw new KeyRuleError(problem);
  await requireAccessTo(context, actor, request.environment);
  const minted = mintKey({ ...request, name: request.name.trim() }, now);
  await context.keys.insert(minted.record, activity(actor, 'key.created', minted.record.id, described(minted.record), now));
  return minted;
}

/** The key, unless it does not exist or is no longer active. */
export async function activeKey(keys: KeyStore, keyId: string): Promise<ApiKeyRecord> {
  const key = await keys.get(keyId);
  if (key === undefined) throw new KeyRuleError(`No key ${keyId}.`);
  if (key.revoked_at !== null) throw new KeyRuleError(`Key ${keyId} was already ${key.revoked_reason} at ${key.revoked_at}.`);
  return key;
}

/**
 * Replaces an active key: the new raw key is returned once; the old one stops working at once, or, rolled with an
 * expiry, when it comes (both work until then). A key already rolled is not rolled again.
 */
export async function rotateApiKey(context: KeyContext, actor: Actor, keyId: string, now: Date, expiresIn: RollExpiry = 'now') {
  const old = await activeKey(context.keys, keyId);
  await requireAccessTo(context, actor, old.environment);
  const minted = mintKey(old, now, old.id);
  const expiresAt = new Date(now.getTime() + rollExpiries[expiresIn]).toISOString();
  const expiry = expiresIn === 'now' ? '' : `, the old key working until ${expiresAt}`;
  // Another rotation or a revocation got there first (a double click): the key is no longer active.
  const entry = activity(actor, 'key.rotated', old.id, `${described(old)} → ${minted.record.id}${expiry}`, now);
  await context.keys.rotate(old.id, minted.record, expiresAt, entry).catch(() => {
    throw new KeyRuleError(`Key ${keyId} is no longer active: it was rotated or revoked a moment ago.`);
  });
  return minted;
}

/** Revokes an active key for good: one never rotated, or a rolled one still in its grace period (it expires now). */
export async function revokeApiKey(context: KeyContext, actor: Actor, keyId: string, now: Date): Promise<ApiKeyRecord> {
  const rolling = await context.keys.get(keyId);
  const key = rolling !== undefined && rollingAt(rolling, now) ? rolling : await activeKey(context.keys, keyId);
  await requireAccessTo(context, actor, key.environment);
  return (await context.keys.revoke(keyId, now.toISOString(), 'revoked', activity(actor, 'key.revoked', keyId, described(key), now)))!;
}
