import { Webhook } from 'standardwebhooks';
import type { NatureEvent } from './api.js';

export { WebhookVerificationError } from 'standardwebhooks';

/** Request headers as Node (`req.headers`), the Fetch API or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * Checks a delivery's Standard Webhooks signature and timestamp with the endpoint's `whsec_…` secret and
 * returns the event. `payload` is the raw body, exactly as received: parsing and re-serialising it breaks the
 * signature. Throws WebhookVerificationError when the delivery is not genuine or is older than 5 minutes.
 */
export function verifyWebhook(payload: string | Uint8Array, headers: WebhookHeaders, secret: string): NatureEvent {
  const body = typeof payload === 'string' ? payload : new TextDecoder().decode(payload);
  return new Webhook(secret).verify(body, lowerCased(headers)) as NatureEvent;
}

function lowerCased(headers: WebhookHeaders): Record<string, string> {
  const entries = headers instanceof Headers ? [...headers.entries()] : Object.entries(headers);
  const result: Record<string, string> = {};
  for (const [name, value] of entries) {
    // Node's type allows arrays (for set-cookie); other repeated headers it joins with ", " itself.
    if (value !== undefined) result[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return result;
}
