import { createHash, randomInt } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import type { PiiEnvelope } from './sealed.js';

/**
 * Two-factor sign-in with TOTP (RFC 6238): SHA-1, six digits, 30-second steps, as every authenticator app reads
 * an otpauth:// address. A code of the step before or after the server's is accepted (a phone's clock drifts),
 * and each user's last accepted step is kept, so a code works once: neither it nor an older one is accepted again.
 */
export const TOTP_PERIOD_SECONDS = 30;
export const TOTP_DIGITS = 6;
/** Steps either side of the server's own that a code may be from. */
export const TOTP_DRIFT_STEPS = 1;
/** 160 bits, the length RFC 4226 recommends for an HMAC-SHA-1 key. */
const SECRET_BYTES = 20;
const ISSUER = 'Nature Profile API';

/** A user's TOTP enrolment: pending until a code confirms it, then on until it is turned off. */
export interface TwoFactorRecord {
  user_id: string;
  /** The shared secret (base32) sealed with the user's data key, as their address is: never at rest in plain text. */
  secret_sealed: PiiEnvelope;
  created_at: string;
  /** When a code confirmed it; null while pending (the secret shown, nothing yet required at sign-in). */
  enabled_at: string | null;
  /** The last time step a code was accepted for: codes of that step or before are refused, so none is replayed. */
  last_step: number | null;
  /** SHA-256 of each recovery code not yet used (recoveryCodeHash); a code used is removed. */
  recovery_code_hashes: string[];
}

/**
 * Between a right password and a right code: who is signing in, under a random token of which only the hash is
 * kept. It is not a session: no page takes it, and it ends after PENDING_SIGN_IN_MS or once a code is accepted.
 */
export interface PendingSignInRecord {
  id_hash: string;
  user_id: string;
  created_at: string;
  expires_at: string;
}

export const PENDING_SIGN_IN_MS = 10 * 60 * 1000;

/** A new shared secret, base32 (what an authenticator app is given when the QR code cannot be scanned). */
export const newTotpSecret = () => new Secret({ size: SECRET_BYTES }).base32;

const totpOf = (secret: string, label = '') =>
  new TOTP({ issuer: ISSUER, label, secret: Secret.fromBase32(secret), digits: TOTP_DIGITS, period: TOTP_PERIOD_SECONDS });

/** The otpauth:// address a QR code carries: the issuer and the person's address name the entry in their app. */
export const totpUri = (secret: string, label: string) => totpOf(secret, label).toString();

/** What a person types: spaces and dashes between groups of digits are theirs to add. */
const typed = (code: string) => code.replace(/[\s-]/g, '');

/** Whether `code` has the shape of an authenticator code (six digits); a recovery code does not. */
export const isTotpCode = (code: string) => new RegExp(`^\\d{${TOTP_DIGITS}}$`).test(typed(code));

/** The time step `at` falls in. */
export const stepAt = (at: Date) => TOTP.counter({ period: TOTP_PERIOD_SECONDS, timestamp: at.getTime() });

/**
 * The time step whose code `code` is, within TOTP_DRIFT_STEPS of `at`'s; undefined when it is none of them. Whether
 * that step may still be used (not replayed) is the store's to say, atomically (TwoFactorStore.acceptStep).
 */
export function matchingStep(secret: string, code: string, at: Date): number | undefined {
  if (!isTotpCode(code)) return undefined;
  const delta = totpOf(secret).validate({ token: typed(code), timestamp: at.getTime(), window: TOTP_DRIFT_STEPS });
  return delta === null ? undefined : stepAt(at) + delta;
}

export const RECOVERY_CODES = 10;
/** Crockford's base 32 without the letters read as digits: a code read aloud or copied by hand survives. */
const RECOVERY_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** 16 characters of 5 bits: 80 bits, beyond guessing and beyond searching the hashes a copy of the store holds. */
const RECOVERY_LENGTH = 16;

/** Ten fresh recovery codes, `XXXX-XXXX-XXXX-XXXX`, each to be shown once and kept only as a hash. */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODES }, () => {
    const characters = Array.from({ length: RECOVERY_LENGTH }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]);
    return characters.join('').replace(/(.{4})(?!$)/g, '$1-');
  });
}

/** Case, spaces and dashes do not matter; O, I and L read as the digits they look like. */
const normalisedRecoveryCode = (code: string) => typed(code).toUpperCase().replace(/O/g, '0').replace(/[IL]/g, '1');

/** Whether `code` may be a recovery code (the length and alphabet of one), before any hash is looked up. */
export const isRecoveryCodeShape = (code: string) =>
  new RegExp(`^[${RECOVERY_ALPHABET}]{${RECOVERY_LENGTH}}$`).test(normalisedRecoveryCode(code));

/** What the store keeps of a recovery code: a hash bound to its user, so one user's code is nobody else's. */
export const recoveryCodeHash = (userId: string, code: string) =>
  createHash('sha256')
    .update(`nature-recovery-code:${userId}:${normalisedRecoveryCode(code)}`)
    .digest('hex');

/** The activity entries of two-factor sign-in, as `noun.verb` (accounts.ts, ActivityRecord). */
export const twoFactorActions = {
  enabled: 'user.two_factor_enabled',
  disabled: 'user.two_factor_disabled',
  recoveryCodesReplaced: 'user.recovery_codes_replaced',
  recoveryCodeUsed: 'user.recovery_code_used',
  required: 'account.two_factor_required',
  optional: 'account.two_factor_optional',
} as const;
