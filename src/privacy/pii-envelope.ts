import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { PiiEnvelope } from '../domain/sealed.js';

export type { PiiEnvelope };

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

export function isEnvelope(value: unknown): value is PiiEnvelope {
  return (
    typeof value === 'object' && value !== null && (value as PiiEnvelope).alg === 'A256GCM' && typeof (value as PiiEnvelope).ct === 'string'
  );
}

/** Binds a ciphertext to its subject and event, so it cannot be moved to another and still open. */
function associatedData(subjectId: string, eventId: string): Buffer {
  return Buffer.from(`nature-pii:${subjectId}:${eventId}`);
}

export function seal(key: Buffer, pii: unknown, subjectId: string, eventId: string): PiiEnvelope {
  const iv = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(associatedData(subjectId, eventId));
  const ct = Buffer.concat([cipher.update(JSON.stringify(pii), 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return { alg: 'A256GCM', iv: iv.toString('base64'), ct: ct.toString('base64') };
}

/** Throws if the envelope was altered or does not belong to this subject and event. */
export function open(key: Buffer, envelope: PiiEnvelope, subjectId: string, eventId: string): unknown {
  const bytes = Buffer.from(envelope.ct, 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(envelope.iv, 'base64'));
  decipher.setAAD(associatedData(subjectId, eventId));
  decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
  const plain = Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]);
  return JSON.parse(plain.toString('utf8'));
}
