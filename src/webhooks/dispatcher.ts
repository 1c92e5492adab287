import type { Logger } from 'pino';
import { deliveryRecord, disableEndpoint, recordAttempt, recordRedelivery, redeliveriesOf } from '../commands/webhooks.js';
import { assessmentStream } from '../domain/assessment.js';
import { newId } from '../domain/ids.js';
import { situationalStream } from '../domain/situational-assessment.js';
import { subjectStream } from '../domain/subject.js';
import { type AttemptOutcome, judgeAttempt, judgeTestAttempt, supersedingRedelivery } from '../domain/webhook-delivery.js';
import { endpointStream, signingSecrets, subscribes, type WebhookEndpoint } from '../domain/webhook-endpoint.js';
import type { Bus, BusMessage, Handler, Outcome, Topic } from '../ports/bus.js';
import { tellsOfErasure, type WebhookEvent } from '../ports/collections.js';
import { type EventMetadata, type EventStore, StreamDeletedError } from '../ports/event-store.js';
import { FencedOffError, type ReadModelStore } from '../ports/read-models.js';
import { type Backoff, backoffDelay } from '../support/backoff.js';
import { pause } from '../support/pause.js';
import type { EndpointRules } from './address-guard.js';
import { deliveryThread } from './delivery-thread.js';
import { enabledEndpoints } from './enabled-endpoints.js';
import { EndpointSlots } from './endpoint-slots.js';
import { eventObject } from './event-object.js';
import { type DeliveryMessage, deliveryMessage, type EventMessage, eventMessage, malformed } from './messages.js';
import type { Sent } from './sender.js';

export interface DispatcherOptions {
  /** Delay before each retry: the schedule's length is the number of retries. */
  retryScheduleMs: readonly number[];
  /** A delivery not answered in this time has failed. */
  timeoutMs: number;
}

export interface DispatcherServices {
  events: EventStore;
  readModels: ReadModelStore;
  bus: Bus;
  /** The environment, and where its deliveries may go: judged again at each POST (an endpoint may predate a rule, a name its address). */
  endpointRules: EndpointRules;
  /**
   * Resolves true once the read models hold every event up to `position`, false if they do not in good
   * time (the projector's `waitFor`): so the endpoints listed for an event include every one registered
   * before it, even while the projector lags behind the publisher.
   */
  readModelsAt: (position: bigint) => Promise<boolean>;
  /**
   * Throws FencedOffError once this replica no longer leads (Lead.guard): asked before each publish and each
   * POST, which no store can fence, so a deposed leader starts neither.
   */
  guard: () => Promise<void>;
}

/**
 * Queues an event again: fanned out as at first, or straight to one endpoint. The id is fresh each time,
 * so the bus does not drop it as a repeat of the first publish. Then it is recorded in the log, where the retries
 * already scheduled of the event to the same endpoints find it and give way, so an endpoint gets it once more,
 * not twice. Queued first: a failure between the two may send twice, but never leaves a retry cancelled for
 * a redelivery that was never queued.
 */
export async function queueRedelivery(
  env: { events: EventStore; bus: Bus },
  eventId: string,
  endpointId: string | undefined,
  metadata: EventMetadata,
): Promise<void> {
  const redelivery = `${eventId}:redeliver:${newId('req')}`;
  if (endpointId === undefined) await env.bus.publish('events', redelivery, { event_id: eventId } satisfies EventMessage);
  else
    await env.bus.publish('deliveries', `${redelivery}:${endpointId}`, {
      event_id: eventId,
      endpoint_id: endpointId,
    } satisfies DeliveryMessage);
  await recordRedelivery(env.events, { event_id: eventId, endpoint_id: endpointId ?? null, redelivery }, metadata);
}

/** Queues a test event for one endpoint: sent once, never retried, and it never disables the endpoint. */
export async function queueTestEvent(bus: Bus, event: WebhookEvent, endpointId: string): Promise<void> {
  return bus.publish('deliveries', `test:${event.id}:${endpointId}`, {
    event,
    endpoint_id: endpointId,
    test: true,
  } satisfies DeliveryMessage);
}

/**
 * Deliveries under way at once (each a handler of the bus's messages), and at most how many of them to one
 * endpoint: one that never answers leaves three quarters to the others. Of an endpoint's, POSTS_PER_ENDPOINT
 * are POSTed at once; the rest wait in the delivery thread and go out the moment one ends, so a busy endpoint
 * is held neither to a trickle by turns on the bus nor by the main thread's round trip between two POSTs.
 */
export const DELIVERY_SLOTS = 128;
export const SLOTS_PER_ENDPOINT = 32;
export const POSTS_PER_ENDPOINT = 8;
/**
 * How long a delivery may wait in the thread for one of its endpoint's POSTs: the guard let it through before it
 * waited, so one that waits longer is handed back to be let through again (a deposed leader's queued deliveries
 * never go out later than this after its guard last said it led).
 */
const WAIT_IN_THREAD_AT_MOST_MS = 1000;
/** Fan-outs under way at once: each waits on a round trip of the bus, so a networked one needs many to keep up. */
const FAN_OUTS = 32;

/** A consumer that failed after this long had been working: the next one starts at once. */
const CONSUMER_RAN_A_WHILE_MS = 10_000;

/** A message a deposed leader did not act on: back on the bus, uncounted, for the replica that leads now. */
const HANDED_BACK: Outcome = { kind: 'defer', delayMs: 1000 };

/** The waits before looking again for data the projector has not written yet: doubling, jittered. */
const NOT_YET_PROJECTED_BACKOFF: Backoff = { firstDelayMs: 250, maxDelayMs: 10_000, jitter: 0.2 };

/** The waits before a failed consumer resumes (unless it had run CONSUMER_RAN_A_WHILE_MS). */
const CONSUMER_BACKOFF: Backoff = { firstDelayMs: 250, maxDelayMs: 5000 };

function notYetProjected(message: BusMessage): Outcome {
  return { kind: 'retry', delayMs: backoffDelay(NOT_YET_PROJECTED_BACKOFF, message.deliveryCount) };
}

/**
 * Delivers the environment's events to its endpoints. An `events` message fans out into one
 * `deliveries` message per subscribed endpoint registered before the event (ids derived from the event
 * message, so a repeat fans out to the same ids); each delivery is one signed POST, recorded, then acked,
 * retried later or dead.
 */
export class WebhookDispatcher {
  private readonly abort = new AbortController();
  private running: Promise<unknown> | undefined;
  /** Each endpoint's registration position in the log: it never changes, so it is read once. */
  private readonly registrations = new Map<string, bigint>();
  private readonly slots = new EndpointSlots(SLOTS_PER_ENDPOINT);

  constructor(
    private readonly services: DispatcherServices,
    private readonly options: DispatcherOptions,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  start(): void {
    if (this.running !== undefined) return;
    const release = deliveryThread.use();
    this.running = Promise.all([
      this.keepConsuming('events', (m) => this.fanOut(m), FAN_OUTS),
      this.keepConsuming('deliveries', (m) => this.deliver(m), DELIVERY_SLOTS),
    ]).finally(release);
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  /**
   * Consumes until stopped, starting over after a failure of the bus (a dropped connection, say): soon
   * after a consumer that ran a while, then less and less often while the bus stays down.
   */
  private async keepConsuming(topic: Topic, handler: Handler, concurrency?: number): Promise<void> {
    let failures = 0;
    while (!this.abort.signal.aborted) {
      const started = performance.now();
      try {
        await this.services.bus.consume(topic, handler, {
          signal: this.abort.signal,
          ...(concurrency !== undefined && { concurrency }),
          onError: (error, message) =>
            this.logger.error({ err: error, topic, message_id: message.id }, 'webhook bus message failed; it comes again'),
        });
      } catch (error) {
        if (this.abort.signal.aborted) return;
        failures = performance.now() - started > CONSUMER_RAN_A_WHILE_MS ? 0 : failures + 1;
        this.logger.error({ err: error, topic }, 'webhook bus consumer failed; resuming');
        // Cut short by stop(): a shutdown or a step-down does not wait out the back-off.
        await pause(backoffDelay(CONSUMER_BACKOFF, failures + 1), this.abort.signal);
      }
    }
  }

  private async fanOut(message: BusMessage): Promise<Outcome> {
    const parsed = eventMessage.safeParse(message.payload);
    // Not ours (published to the subject by hand, say): no retry can make it deliverable.
    if (!parsed.success) return { kind: 'dead', reason: malformed('events', parsed.error) };
    // What the dispatcher reads is checked; fields it does not know ride along.
    const payload = parsed.data as EventMessage;
    const found = 'event' in payload ? { event: payload.event, position: BigInt(payload.position) } : await this.lookUp(payload.event_id);
    if (!found) return notYetProjected(message);
    const { event, position } = found;
    if (!(await this.services.readModelsAt(position))) return notYetProjected(message);
    if (await this.subjectErased(event)) return { kind: 'ack' };
    const targets: WebhookEndpoint[] = [];
    for (const endpoint of await enabledEndpoints(this.services.readModels)) {
      if (!subscribes(endpoint, event.type)) continue;
      // The fan-out may run long after the event (the bus or dispatcher lagging, a redelivery): an endpoint
      // gets the events that follow its registration in the log, whenever they are fanned out.
      const registered = await this.registeredAt(endpoint.id);
      if (registered === undefined || registered > position) continue;
      targets.push(endpoint);
    }
    if (targets.length > 0 && !(await this.leading(message.id))) return HANDED_BACK;
    // Side by side: a networked bus takes one round trip for all of them, not one each.
    await Promise.all(
      targets.map((endpoint) =>
        this.services.bus.publish('deliveries', `${message.id}:${endpoint.id}`, {
          event,
          endpoint_id: endpoint.id,
        } satisfies DeliveryMessage),
      ),
    );
    return { kind: 'ack' };
  }

  /**
   * An event a message names only (a redelivery, or a message queued before messages carried events): its
   * document, and its position from the event that recorded it: a ScoringCompleted or ProfileUpdated in its
   * assessment's stream, or a SituationalAssessmentCompleted in its situational assessment's.
   */
  private async lookUp(eventId: string): Promise<{ event: WebhookEvent; position: bigint } | undefined> {
    const event = await this.projectedEvent(eventId);
    if (!event) return undefined;
    const stream = recordedIn(event);
    const { events } = await this.services.events.readStream(stream);
    const recorded = events.find((e) => (e.data as { event_id?: string }).event_id === eventId);
    if (!recorded) throw new Error(`event ${eventId} is not in its stream ${stream}`);
    return { event, position: recorded.position };
  }

  private async projectedEvent(eventId: string): Promise<WebhookEvent | undefined> {
    return this.services.readModels.get('events', eventId);
  }

  /** Deliveries of an erased subject's events are cancelled: acked unsent, except those telling of the erasure itself. */
  private async subjectErased(event: WebhookEvent): Promise<boolean> {
    if (tellsOfErasure(event)) return false;
    const subject = await this.services.readModels.get('subjects', event.data.subject_id);
    if (subject?.status !== 'erased') return false;
    this.logger.info({ event_id: event.id }, 'webhook delivery cancelled: the subject was erased');
    return true;
  }

  /** Undefined for an endpoint whose history an operator deleted from the log: it gets nothing, the others get theirs. */
  private async registeredAt(endpointId: string): Promise<bigint | undefined> {
    let position = this.registrations.get(endpointId);
    if (position === undefined) {
      const history = await this.services.events.readStream(endpointStream(endpointId)).catch((error: unknown) => {
        if (!(error instanceof StreamDeletedError)) throw error;
        this.logger.warn({ endpoint_id: endpointId }, 'webhook endpoint skipped: its stream was deleted from the event log');
        return undefined;
      });
      if (history === undefined) return undefined;
      const created = history.events[0];
      if (!created) throw new Error(`webhook endpoint ${endpointId} has no registration in the log`);
      position = created.position;
      this.registrations.set(endpointId, position);
    }
    return position;
  }

  private async deliver(message: BusMessage): Promise<Outcome> {
    const parsed = deliveryMessage.safeParse(message.payload);
    if (!parsed.success) return { kind: 'dead', reason: malformed('deliveries', parsed.error) };
    const payload = parsed.data as DeliveryMessage;
    const { endpoint_id } = payload;
    const endpoint = await this.services.readModels.get('webhook_endpoints', endpoint_id);
    // Deleted, or disabled since the fan-out: nothing to deliver to. A test may check a disabled endpoint before it is enabled again.
    if (!endpoint || (endpoint.status !== 'enabled' && !payload.test)) return { kind: 'ack' };
    // The slot first: a delivery turned away because its endpoint is busy (a hung one turns away hundreds a
    // second) costs this one read, not the event's, the subject's and the delivery's too.
    const slot = this.slots.take(endpoint_id);
    if ('retryInMs' in slot) {
      return { kind: 'defer', delayMs: slot.retryInMs };
    }
    const taken = performance.now();
    // The slot is held until the POST is answered (its wait in the thread included), which is what the endpoint
    // takes: recording the attempt is the log's work, shared with the other deliveries in one group commit. One
    // given back without a POST teaches the slots no duration.
    try {
      const event = 'event' in payload ? payload.event : await this.projectedEvent(payload.event_id);
      if (!event) return notYetProjected(message);
      const record = await deliveryRecord(this.services.events, message.id);
      // A delivery settled already (a repeat of its message after the bus's duplicate window) is not sent again.
      if (record.outcome !== null && record.outcome !== 'retrying') return { kind: 'ack' };
      if (record.outcome === 'retrying' && (await this.superseded(message.id, endpoint, event, record.firstAttemptAt!)))
        return { kind: 'ack' };
      // Pending deliveries (retries included) of an erased subject's events stop here. A test event names no subject.
      if (!payload.test && (await this.subjectErased(event))) return this.cancel(message.id, endpoint_id, event, record.attempts + 1);
      return await this.attempt(message.id, endpoint, event, record.attempts + 1, payload.test === true, () =>
        slot.release(performance.now() - taken),
      );
    } finally {
      slot.release();
    }
  }

  /** One POST of a delivery (`posted` once it is answered), recorded in the log, and what the bus is to do with its message. */
  private async attempt(
    deliveryId: string,
    endpoint: WebhookEndpoint,
    event: WebhookEvent,
    attempt: number,
    test: boolean,
    posted: () => void,
  ): Promise<Outcome> {
    const endpoint_id = endpoint.id;
    const body = JSON.stringify(eventObject(event, this.services.endpointRules.livemode));
    let sent: Sent | undefined;
    do {
      if (!(await this.leading(deliveryId))) return HANDED_BACK;
      sent = await this.post(endpoint, event.id, body);
      // Withdrawn in the thread before it went out: it waited its longest for one of the endpoint's POSTs (the
      // guard is asked again before it waits anew), or the dispatcher is stopping (back on the bus, uncounted).
    } while (sent === undefined && !this.abort.signal.aborted);
    if (sent === undefined) return { kind: 'defer', delayMs: 0 };
    posted();
    const now = this.clock();
    const verdict: { outcome: AttemptOutcome; retryInMs: number | null } = test
      ? { outcome: judgeTestAttempt(sent), retryInMs: null }
      : judgeAttempt(sent, attempt, this.options.retryScheduleMs);
    await recordAttempt(this.services.events, deliveryId, {
      event_id: event.id,
      endpoint_id,
      attempt,
      outcome: verdict.outcome,
      status_code: sent.status_code,
      error: sent.error,
      duration_ms: sent.duration_ms,
      response_excerpt: sent.response_excerpt,
      request: sent.request_headers === null ? null : { headers: sent.request_headers, body },
      attempted_at: now.toISOString(),
      next_attempt_at: verdict.retryInMs === null ? null : new Date(now.getTime() + verdict.retryInMs).toISOString(),
    });
    this.logger.info(
      { event_id: event.id, endpoint_id, attempt, outcome: verdict.outcome, status_code: sent.status_code, ...(test && { test }) },
      'webhook attempt',
    );
    if (test) return { kind: 'ack' };
    switch (verdict.outcome) {
      case 'succeeded':
        return { kind: 'ack' };
      case 'endpoint_gone':
        await this.retire(endpoint_id, 'The endpoint answered 410 Gone.', now);
        return { kind: 'ack' };
      case 'retrying':
        return { kind: 'retry', delayMs: verdict.retryInMs! };
      case 'failed':
        await this.retire(endpoint_id, `A delivery got no 2xx in ${attempt} attempts: its retries are exhausted.`, now);
        return { kind: 'dead', reason: `no 2xx after ${attempt} attempts` };
    }
  }

  /**
   * Whether a redelivery of the event to the endpoint was asked for since this delivery began: its retry is then
   * dropped unsent and unrecorded (its list ends with the attempt that scheduled it), and the redelivery carries on,
   * retried on its own schedule if it fails. The log decides, so it holds across restarts and replicas.
   */
  private async superseded(deliveryId: string, endpoint: WebhookEndpoint, event: WebhookEvent, firstAttemptAt: bigint): Promise<boolean> {
    const requests = await redeliveriesOf(this.services.events, event.id);
    const listens = subscribes(endpoint, event.type);
    const by = supersedingRedelivery(requests, { id: deliveryId, endpointId: endpoint.id, listens, firstAttemptAt });
    if (by === undefined) return false;
    this.logger.info(
      { event_id: event.id, endpoint_id: endpoint.id, superseded_by: by },
      'webhook retry superseded by a redelivery; not sent',
    );
    return true;
  }

  /** Records that the delivery's due attempt was not made, its subject erased: its list shows a final `cancelled`. */
  private async cancel(deliveryId: string, endpoint_id: string, event: WebhookEvent, attempt: number): Promise<Outcome> {
    if (!(await this.leading(deliveryId))) return HANDED_BACK;
    await recordAttempt(this.services.events, deliveryId, {
      event_id: event.id,
      endpoint_id,
      attempt,
      outcome: 'cancelled',
      status_code: null,
      error: "Cancelled: the event's subject was erased, so nothing was sent.",
      duration_ms: 0,
      response_excerpt: null,
      request: null,
      attempted_at: this.clock().toISOString(),
      next_attempt_at: null,
    });
    return { kind: 'ack' };
  }

  /** Whether this replica still leads (the term's guard): a deposed one neither publishes nor POSTs. */
  private async leading(messageId: string): Promise<boolean> {
    try {
      await this.services.guard();
      return true;
    } catch (error) {
      if (!(error instanceof FencedOffError)) throw error;
      this.logger.warn({ message_id: messageId }, 'another replica leads now; the message is handed back to it');
      return false;
    }
  }

  /** Stops delivering to an endpoint, and says so once, at warn: an operator's cue that a receiver needs fixing. */
  private async retire(endpointId: string, reason: string, now: Date): Promise<void> {
    if (await disableEndpoint(this.services.events, endpointId, reason, now)) {
      this.logger.warn(
        { endpoint_id: endpointId, reason },
        'webhook endpoint disabled; PATCH it with "status": "enabled" once it is fixed',
      );
    }
  }

  /**
   * The Standard Webhooks request, signed and sent by the delivery thread: webhook-id is the event id, stable
   * across retries. During a secret rotation's overlap it carries a signature for each secret, so a receiver
   * holding either verifies it. It waits in the thread for one of its endpoint's POSTS_PER_ENDPOINT, unless
   * the dispatcher stops first.
   */
  private post(endpoint: WebhookEndpoint, eventId: string, body: string) {
    const now = this.clock();
    const lane = { name: endpoint.id, atOnce: POSTS_PER_ENDPOINT, waitAtMostMs: WAIT_IN_THREAD_AT_MOST_MS, signal: this.abort.signal };
    return deliveryThread.send(
      {
        url: endpoint.url,
        body,
        webhookId: eventId,
        timestampSeconds: Math.floor(now.getTime() / 1000),
        secrets: signingSecrets(endpoint, now),
        timeoutMs: this.options.timeoutMs,
        rules: this.services.endpointRules,
      },
      lane,
    );
  }
}

/** The stream holding the log's event an event object was made from (its `event_id` names it). */
function recordedIn(event: WebhookEvent): string {
  switch (event.type) {
    case 'situational.assessment.completed':
      return situationalStream(event.data.id);
    case 'nature.subject.created':
    case 'nature.subject.erased':
      return subjectStream(event.data.subject_id);
    default:
      return assessmentStream(event.data.assessment_id);
  }
}
