import { createHmac } from 'node:crypto';
import { secretKey } from '../domain/webhook-secrets.js';

/** The Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `id.timestamp.body` with the decoded secret. */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  return `v1,${createHmac('sha256', secretKey(secret)).update(`${id}.${timestampSeconds}.${body}`).digest('base64')}`;
}

/** The webhook-signature header: one signature per secret, space-separated, as Standard Webhooks allows during a rotation. */
export function signatureHeader(secrets: readonly string[], id: string, timestampSeconds: number, body: string): string {
  return secrets.map((secret) => sign(secret, id, timestampSeconds, body)).join(' ');
}

/** The Standard Webhooks headers of one attempt to deliver `body`: webhook-id is the event id, stable across retries. */
export function webhookHeaders(secrets: readonly string[], id: string, timestampSeconds: number, body: string): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': signatureHeader(secrets, id, timestampSeconds, body),
  };
}
