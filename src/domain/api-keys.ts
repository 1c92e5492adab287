import { createHash, createHmac } from 'node:crypto';
import { customAlphabet, customRandom } from 'nanoid';
import { newId } from './ids.js';
import { lineProblem } from './text.js';

export const environments = ['test', 'live'] as const;
export type Environment = (typeof environments)[number];

export const keyTypes = ['pk', 'sk'] as const;
export type KeyType = (typeof keyTypes)[number];

/** The scopes that can be minted: Nature's, Careers' (v1.0.5) and Situational's (v1.1); other products' scopes are not launched. */
export const scopes = ['careers:read', 'nature:read', 'nature:write', 'situational:read', 'situational:write'] as const;
export type Scope = (typeof scopes)[number];

export interface ApiKeyRecord {
  id: string;
  name: string;
  environment: Environment;
  type: KeyType;
  scopes: Scope[];
  /** SHA-256 of the raw key, hex. Raw keys carry 238 bits of randomness, so a fast hash is enough. */
  hash: string;
  /** The raw key's last four characters, so an operator can tell keys apart. */
  last4: string;
  created_at: string;
  revoked_at: string | null;
  revoked_reason: 'revoked' | 'rotated' | null;
  /** The key this one replaced by rotation. */
  rotated_from: string | null;
  /** A pk key's allowed browser origins (scheme://host[:port]); empty: any origin. Always empty for sk keys. */
  origins: string[];
  /** The start of the last hour (UTC) a request used the key in; null before its first. Written in batches, not per request. */
  last_used_at: string | null;
}

/** How a key is named where its secret may not be shown: its environment, type and last four characters (`test_sk_…Ab12`). */
export const keyHint = (key: { environment: Environment; type: KeyType }, last4: string): string =>
  `${key.environment}_${key.type}_…${last4}`;

/** The hour `now` falls in, as a key's `last_used_at` names it: `2026-11-29T14:00:00.000Z`. */
export const usedHour = (now: Date): string => `${now.toISOString().slice(0, 13)}:00:00.000Z`;

/**
 * How long a rotated key keeps working beside its replacement, as Stripe's "roll key" offers: `now` ends it at once.
 * Its `revoked_at` is then that moment, in the future until it comes.
 */
export const rollExpiries = { now: 0, '1h': 3_600_000, '24h': 86_400_000, '3d': 3 * 86_400_000, '7d': 7 * 86_400_000 } as const;
export type RollExpiry = keyof typeof rollExpiries;
export const rollExpiryNames = Object.keys(rollExpiries) as [RollExpiry, ...RollExpiry[]];

/** Whether the key is accepted at `now`: never revoked, or rotated with an expiry still to come. */
export const keyWorksAt = (key: ApiKeyRecord, now: Date): boolean => key.revoked_at === null || Date.parse(key.revoked_at) > now.getTime();

/** A rotated key in its grace period: it still works, until `revoked_at`. */
export const rollingAt = (key: ApiKeyRecord, now: Date): boolean => key.revoked_at !== null && keyWorksAt(key, now);

export const RANDOM_LENGTH = 40;
/** Base62 random characters: the secret part of raw API keys and client secrets. */
export const KEY_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const randomPart = customAlphabet(KEY_ALPHABET, RANDOM_LENGTH);

/**
 * A part drawn as randomPart draws one, from a stream of bytes keyed by `secret` and `context` (HMAC-SHA-256
 * blocks) instead: the same inputs give the same part, as unguessable as a random one to anyone without `secret`.
 * A retry after a crash answers with it the secret the first run minted, of which the log keeps only the hash.
 */
export function derivedRandomPart(secret: Buffer, context: string): string {
  let block = 0;
  const bytes = (size: number) => {
    const out = Buffer.alloc(size);
    for (let filled = 0; filled < size; filled += 32)
      createHmac('sha256', secret).update(`${context}\0${block++}`).digest().copy(out, filled);
    return out;
  };
  return customRandom(KEY_ALPHABET, RANDOM_LENGTH, bytes)();
}
const RAW_KEY = /^(test|live)_(pk|sk)_[0-9A-Za-z]{32,128}$/;

export function hashKey(raw: string): string {
  return createHash('sha256').update(raw).digest('hex');
}

/** The environment and type a raw key's prefix names, or undefined when it is malformed. */
export function parseRawKey(raw: string): { environment: Environment; type: KeyType } | undefined {
  const match = RAW_KEY.exec(raw);
  if (!match) return undefined;
  return { environment: match[1] as Environment, type: match[2] as KeyType };
}

export interface MintRequest {
  name: string;
  environment: Environment;
  type: KeyType;
  scopes: Scope[];
  origins?: string[];
}

/**
 * An origin as browsers send it (lower-case, default port left out), from scheme://host[:port]; undefined for
 * anything else: a path, even a trailing slash, or a wildcard would never match a browser's Origin header.
 */
export function parseOrigin(value: string): string | undefined {
  // No `*`: origins match exactly (the URL parser would keep `https://*.example.com`, which no browser ever sends).
  if (!/^https?:\/\/[^/?#@\s*]+$/i.test(value)) return undefined;
  try {
    return new URL(value).origin;
  } catch {
    return undefined;
  }
}

/** A new key: the record to store and the raw key to show once. */
export function mintKey(request: MintRequest, now: Date, rotatedFrom: string | null = null) {
  const raw = `${request.environment}_${request.type}_${randomPart()}`;
  const record: ApiKeyRecord = {
    id: newId('key'),
    name: request.name,
    environment: request.environment,
    type: request.type,
    scopes: [...new Set(request.scopes)].sort(),
    hash: hashKey(raw),
    last4: raw.slice(-4),
    created_at: now.toISOString(),
    revoked_at: null,
    revoked_reason: null,
    rotated_from: rotatedFrom,
    origins: [...new Set(request.origins ?? [])],
    last_used_at: null,
  };
  return { raw, record };
}

export const KEY_NAME_MAX = 100;

/** Why a key's name is refused, or undefined: 1..100 printable characters once trimmed. */
export const keyNameProblem = (name: string) => lineProblem('A name', name, KEY_NAME_MAX);

/** Why a mint request breaks the rules of keys, or undefined (the command line and the dashboard apply the same). */
export function mintProblem(request: MintRequest): string | undefined {
  const name = keyNameProblem(request.name);
  if (name !== undefined) return name;
  if (request.scopes.length === 0) return 'A key has at least one scope.';
  // A pk key writes only with an assessment's client secret: a write scope of its own would be a leak.
  if (request.type === 'pk' && request.scopes.includes('nature:write'))
    return 'A pk (publishable) key cannot have nature:write; mint an sk key for writes.';
  // pk keys never reach the careers routes (contract, "Careers"): the scope would only mislead.
  if (request.type === 'pk' && request.scopes.includes('careers:read'))
    return 'A pk (publishable) key cannot have careers:read; careers are read from your server with an sk key.';
  // A situation is told from the caller's server, and its result is the person's: never from a browser.
  if (request.type === 'pk' && request.scopes.some((scope) => scope.startsWith('situational:')))
    return 'A pk (publishable) key cannot have situational scopes; situational assessments are made and read from your server with an sk key.';
  // An sk key never runs in a browser, so it has no origins to allow.
  if (request.type === 'sk' && (request.origins?.length ?? 0) > 0)
    return 'Allowed origins are for pk (publishable) keys only; sk keys are never used from a browser.';
  return undefined;
}
