import { createHmac, randomBytes } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/** `whsec_` + base64 of 32 random bytes, as Standard Webhooks libraries expect. */
export function newSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

/** The Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` with the decoded secret. */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The webhook-signature header: one signature per secret, space-separated, as Standard Webhooks allows during a rotation. */
export function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  return secrets.map((secret) => sign(secret, id, timestampSeconds, body)).join(' ');
}
