import { timingSafeEqual } from 'node:crypto';
import { derivedRandomPart, hashKey, randomPart } from './api-keys.js';

/**
 * An assessment's client secret, `asm_…_secret_…`: what a browser presents with a pk key to act on that one
 * assessment. It names its assessment, so a secret of another assessment is told apart before any lookup
 * (namesAssessment).
 * Only its SHA-256 is kept (in the log and the read model), like API keys: it carries 238 random bits.
 */
const CLIENT_SECRET = /^(asm_[0-9A-Za-z]+)_secret_[0-9A-Za-z]{40}$/;

export function mintClientSecret(assessmentId: string): { raw: string; hash: string } {
  const raw = `${assessmentId}_secret_${randomPart()}`;
  return { raw, hash: hashKey(raw) };
}

/**
 * The secret of an assessment started with an Idempotency-Key: drawn, as mintClientSecret draws one, from a
 * stream of bytes keyed by the environment's secret and the key's tag, so a retry after a crash answers the
 * secret the first run minted (the log keeps only its hash). It is as unguessable as a random one to anyone
 * without the environment's secret.
 */
export function derivedClientSecret(assessmentId: string, environmentSecret: Buffer, tag: string): { raw: string; hash: string } {
  const raw = `${assessmentId}_secret_${derivedRandomPart(environmentSecret, `client-secret\0${assessmentId}\0${tag}`)}`;
  return { raw, hash: hashKey(raw) };
}

/** The assessment a client secret names, if `raw` has the form of one. */
export function assessmentNamedBy(raw: string): string | undefined {
  return CLIENT_SECRET.exec(raw)?.[1];
}

/** Whether `raw` has the form of a client secret of assessment `assessmentId`. */
export function namesAssessment(raw: string, assessmentId: string): boolean {
  return CLIENT_SECRET.exec(raw)?.[1] === assessmentId;
}

/** Whether `raw` is the secret of assessment `assessmentId`, whose stored hash is `hash` (absent: it has none). */
export function clientSecretMatches(raw: string, assessmentId: string, hash: string | undefined): boolean {
  if (hash === undefined || !namesAssessment(raw, assessmentId)) return false;
  return timingSafeEqual(Buffer.from(hashKey(raw), 'hex'), Buffer.from(hash, 'hex'));
}
