import http from 'node:http';
import https from 'node:https';
import { RESPONSE_EXCERPT_BYTES, type SendResult } from '../domain/webhook-delivery.js';
import { type EndpointRules, guardedLookup, hostProblem, isAllowedAddress } from './address-guard.js';
import { webhookHeaders } from './signer.js';

export interface Delivery {
  url: string;
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Where the environment may deliver: public addresses, and loopback in a sandbox whose operator allows it. */
  rules: EndpointRules;
}

export interface Sent extends SendResult {
  duration_ms: number;
  /** Null when nothing was answered, and when a non-public address answered: a key must not read the server's own services. */
  response_excerpt: string | null;
  /** The headers sent (the body is the caller's); null when the address rules refused the host and nothing was. */
  request_headers: Record<string, string> | null;
}

/**
 * One POST. Never follows a redirect; a timeout, refusal or reset is an error, not a throw. The host is
 * judged again by the rules in force now: a literal address is connected to without any lookup, and an
 * endpoint may predate a rule.
 */
export function send(delivery: Delivery): Promise<Sent> {
  const started = performance.now();
  const url = new URL(delivery.url);
  const refused = hostProblem(url, delivery.rules);
  if (refused)
    return Promise.resolve({
      status_code: null,
      error: `refused: ${refused}`,
      duration_ms: 0,
      response_excerpt: null,
      request_headers: null,
    });
  const client = url.protocol === 'https:' ? https : http;
  const headers = { 'content-type': 'application/json', 'user-agent': 'NatureProfileAPI-Webhooks/1', ...delivery.headers };
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: SendResult, excerpt: string | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...result, duration_ms: Math.round(performance.now() - started), response_excerpt: excerpt, request_headers: headers });
    };
    const request = client.request(
      url,
      {
        method: 'POST',
        headers,
        lookup: guardedLookup(delivery.rules.loopback),
      },
      (response) => {
        const shown = isAllowedAddress(response.socket.remoteAddress ?? '', false);
        const chunks: Buffer[] = [];
        let length = 0;
        response.on('data', (chunk: Buffer) => {
          if (length < RESPONSE_EXCERPT_BYTES) chunks.push(chunk);
          length += chunk.length;
          // Enough is read: a receiver cannot hold the dispatcher with an endless body.
          if (length >= RESPONSE_EXCERPT_BYTES) response.destroy();
        });
        const done = () =>
          finish(
            { status_code: response.statusCode ?? null, error: null },
            shown ? Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES).toString('utf8') : null,
          );
        response.on('end', done);
        response.on('close', done);
      },
    );
    const timer = setTimeout(() => {
      finish({ status_code: null, error: `timeout after ${delivery.timeoutMs} ms` }, null);
      request.destroy();
    }, delivery.timeoutMs);
    request.on('error', (error) => finish({ status_code: null, error: error.message }, null));
    request.end(delivery.body);
  });
}

/** A delivery as the delivery thread takes it: signed there, with each secret in force (two during a rotation's overlap). */
export interface SignedDelivery extends Omit<Delivery, 'headers'> {
  /** webhook-id: the event id, stable across retries. */
  webhookId: string;
  timestampSeconds: number;
  secrets: readonly string[];
}

/** The Standard Webhooks request: signed, then one POST. */
export function sendSigned({ webhookId, timestampSeconds, secrets, ...delivery }: SignedDelivery): Promise<Sent> {
  return send({ ...delivery, headers: webhookHeaders(secrets, webhookId, timestampSeconds, delivery.body) });
}
