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
interface AttemptRequest {
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

/**
 * A redelivery asked for (the API, the dashboard, a replay) of an event, to one endpoint or to every one that
 * listens to it: `redelivery` is the id of its message, whose deliveries are `${redelivery}:${endpoint_id}`.
 */
export type WebhookRedeliveryRequested = {
  type: 'WebhookRedeliveryRequested';
  data: { event_id: string; endpoint_id: string | null; redelivery: string };
};

/** One stream per event: the redeliveries asked of it, which the retries of its earlier deliveries give way to. */
export function redeliveryStream(eventId: string): string {
  return `webhook_redeliveries-${eventId}`;
}

/**
 * The redelivery that supersedes a delivery's scheduled retry, if any: one of the same event to the same endpoint
 * (by name, or to every endpoint that listens to it) asked for after the delivery began, that is after its own
 * request when it is a redelivery itself, else after its first attempt. The later request wins, so of two
 * redeliveries one goes on retrying, and the endpoint is never left with none.
 */
export function supersedingRedelivery(
  requests: readonly { position: bigint; data: WebhookRedeliveryRequested['data'] }[],
  delivery: { id: string; endpointId: string; listens: boolean; firstAttemptAt: bigint },
): string | undefined {
  const own = requests.find((request) => delivery.id === `${request.data.redelivery}:${delivery.endpointId}`);
  const since = own?.position ?? delivery.firstAttemptAt;
  const covers = (endpointId: string | null) => (endpointId === null ? delivery.listens : endpointId === delivery.endpointId);
  return requests.find((request) => request !== own && request.position > since && covers(request.data.endpoint_id))?.data.redelivery;
}
