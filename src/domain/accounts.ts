import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { newId } from './ids.js';
import type { PiiEnvelope } from './sealed.js';

/**
 * The account and its people. v1 has one account (specification §1.5) whose people are all owners; v1.1's seats
 * and roles add members with other roles to the same records, so a user already names its account and role.
 */
export const ACCOUNT_ID = 'acct_default';

/** The roles of v1.1's members, most powerful first; what each may do is the permission table's (permissions.ts). */
export const roles = ['owner', 'admin', 'developer', 'viewer'] as const;
export type Role = (typeof roles)[number];

export interface UserRecord {
  id: string;
  account_id: string;
  role: Role;
  /** The e-mail address sealed with the user's own data key (never at rest in plain text). */
  email_sealed: PiiEnvelope;
  /** HMAC of the normalised address under a secret of the store: how sign-in finds the user without the plain address. */
  email_index: string;
  /** scrypt hash (passwordHash); null until the user sets one through the set-up link. */
  password_hash: string | null;
  /** SHA-256 of the one-time set-up token; null once used (or when the password came from the operator). */
  setup_token_hash: string | null;
  setup_expires_at: string | null;
  created_at: string;
}

/** A signed-in browser. Only a hash of the cookie's value is stored, so a copy of the store signs nobody in. */
export interface SessionRecord {
  id_hash: string;
  user_id: string;
  created_at: string;
  last_seen_at: string;
  /** The absolute end, however active the session is. */
  expires_at: string;
}

export const applicationStatuses = ['pending', 'approved', 'rejected'] as const;
export type ApplicationStatus = (typeof applicationStatuses)[number];

/** The account's application for production access (specification §5.10): live keys need it approved. */
export interface ApplicationRecord {
  account_id: string;
  status: ApplicationStatus;
  organisation: string;
  intended_use: string;
  expected_monthly_completions: number;
  submitted_by: string;
  submitted_at: string;
  decided_at: string | null;
  /** The operator's reason for a rejection. */
  reason: string | null;
}

/** Who did something: a dashboard user, or the operator at the command line. */
export type Actor = { type: 'user'; user_id: string } | { type: 'operator' };

/**
 * One entry of the account's activity: an append-only record of each change made to keys, webhook endpoints and
 * the application, with who made it. Ids are time-ordered (act_ + ULID), so the newest sort last.
 */
export interface ActivityRecord {
  id: string;
  account_id: string;
  at: string;
  actor: Actor;
  /** What happened, as `noun.verb`: key.created, key.rotated, application.approved, webhook_endpoint.updated, … */
  action: string;
  /** The id of what it happened to (a key, an endpoint, the account). */
  target: string;
  /** A few words of detail shown beside it (a key's name, an endpoint's url); never a secret. */
  detail: string;
}

export function activity(actor: Actor, action: string, target: string, detail: string, now: Date): ActivityRecord {
  return { id: newId('act'), account_id: ACCOUNT_ID, at: now.toISOString(), actor, action, target, detail };
}

export const newUserId = () => newId('usr');

/** Addresses compare case-insensitively and without surrounding space: `Ana@Example.com ` signs in as ana@example.com. */
export const normaliseEmail = (email: string) => email.trim().toLowerCase();

/** A plausible address (one @, a dot in the domain, no spaces): enough to catch a typo; the operator vouches for it. */
export const isEmail = (email: string) => /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/.test(normaliseEmail(email)) && email.length <= 254;

export const PASSWORD_MIN = 12;
export const PASSWORD_MAX = 1024;

/** Why a password is refused, or undefined: length is what matters (NIST SP 800-63B), not character classes. */
export function passwordProblem(password: string): string | undefined {
  const length = [...password].length;
  if (length < PASSWORD_MIN) return `A password has at least ${PASSWORD_MIN} characters.`;
  if (length > PASSWORD_MAX) return `A password has at most ${PASSWORD_MAX} characters.`;
  return undefined;
}

// scrypt with N=2^15, r=8, p=1 (OWASP's minimum for scrypt is N=2^17 with p=1 or N=2^15 with p=3; we take p=3).
const SCRYPT = { N: 2 ** 15, r: 8, p: 3, maxmem: 64 * 1024 * 1024 } as const;
const KEY_BYTES = 32;
const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, length: number, options: object) => Promise<Buffer>;

/** `scrypt$N$r$p$salt$hash`, base64: the parameters travel with the hash, so raising them later needs no migration. */
export async function passwordHash(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password.normalize('NFC'), salt, KEY_BYTES, SCRYPT);
  return ['scrypt', SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString('base64'), hash.toString('base64')].join('$');
}

export async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const expected = Buffer.from(hash, 'base64');
  const actual = await scryptAsync(password.normalize('NFC'), Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: SCRYPT.maxmem,
  });
  return timingSafeEqual(actual, expected);
}

/** A hash to compare against when no user matched, so a wrong address takes as long as a wrong password. */
export const decoyPasswordHash = passwordHash(randomBytes(16).toString('hex'));

/** A random token for a cookie or a link (256 bits, base64url), and the hash a store keeps of it. */
export const newToken = () => randomBytes(32).toString('base64url');
export const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

/** How long a set-up link works. */
export const SETUP_LINK_MS = 72 * 3600 * 1000;
