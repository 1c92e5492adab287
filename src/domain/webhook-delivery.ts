/** One HTTP attempt to deliver an event to an endpoint, as the log records it. */
export type WebhookDeliveryAttempted = {
  type: 'WebhookDeliveryAttempted';
  data: {
    delivery_id: string;
    event_id: string;
    endpoint_id: string;
    attempt: number;
    outcome: DeliveryOutcome;
    status_code: number | null;
    error: string | null;
    duration_ms: number;
    /** The start of the receiver's answer, at most RESPONSE_EXCERPT_BYTES. */
    response_excerpt: string | null;
    /** What was sent; null when nothing was (refused, cancelled), absent from attempts recorded before it was kept. */
    request?: AttemptRequest | null;
    attempted_at: string;
    next_attempt_at: string | null;
  };
};

/**
 * The request of an attempt: the headers this service set (the signatures among them, never a secret) and the
 * body exactly as signed, the event object, whose data holds ids only. A few hundred bytes.
 */
export interface AttemptRequest {
  headers: Record<string, string>;
  body: string;
}

/** `cancelled`: the attempt was due when its subject had been erased, and nothing was sent; final, like the others but `retrying`. */
export type DeliveryOutcome = 'succeeded' | 'retrying' | 'failed' | 'endpoint_gone' | 'cancelled';
/** What an HTTP attempt can come to. */
export type AttemptOutcome = Exclude<DeliveryOutcome, 'cancelled'>;

export const RESPONSE_EXCERPT_BYTES = 1024;

/** One stream per delivery (an event to an endpoint, or a redelivery of it): its events are the attempts. */
export function deliveryStream(deliveryId: string): string {
  return `webhook_delivery-${deliveryId}`;
}

export interface SendResult {
  status_code: number | null;
  error: string | null;
}

/**
 * What an attempt means: a 2xx is success; 410 Gone retires the endpoint; anything else (3xx included:
 * redirects are not followed; timeouts, refused connections) is retried after the schedule's next delay,
 * and fails for good once the schedule is spent. `attempt` counts from 1.
 */
export function judgeAttempt(
  result: SendResult,
  attempt: number,
  scheduleMs: readonly number[],
): { outcome: AttemptOutcome; retryInMs: number | null } {
  if (result.status_code !== null && result.status_code >= 200 && result.status_code < 300)
    return { outcome: 'succeeded', retryInMs: null };
  if (result.status_code === 410) return { outcome: 'endpoint_gone', retryInMs: null };
  const delay = scheduleMs[attempt - 1];
  return delay === undefined ? { outcome: 'failed', retryInMs: null } : { outcome: 'retrying', retryInMs: delay };
}

/** A test event is sent once: a 2xx succeeds, anything else fails, and nothing retries it or retires the endpoint. */
export function judgeTestAttempt(result: SendResult): AttemptOutcome {
  return result.status_code !== null && result.status_code >= 200 && result.status_code < 300 ? 'succeeded' : 'failed';
}
