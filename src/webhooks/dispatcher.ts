import type { Logger } from 'pino';
import type { EventMessage } from '../../projections/publisher.js';
import { attemptsSoFar, disableEndpoint, recordAttempt } from '../commands/webhooks.js';
import { judgeAttempt } from '../domain/webhook-delivery.js';
import { type EventType, type WebhookEndpoint, subscribes } from '../domain/webhook-endpoint.js';
import type { Bus, BusMessage, Handler, Outcome, Topic } from '../ports/bus.js';
import type { EventStore } from '../ports/event-store.js';
import type { Document, ReadModelStore } from '../ports/read-models.js';
import { type EventData, eventObject } from './event-object.js';
import { send } from './sender.js';
import { sign } from './signer.js';

export interface DispatcherOptions {
  /** Delay before each retry: the schedule's length is the number of retries. */
  retryScheduleMs: readonly number[];
  /** A delivery not answered in this time has failed. */
  timeoutMs: number;
}

interface DeliveryMessage {
  event_id: string;
  endpoint_id: string;
}

/** How soon to look again for a document the projector has not written yet: a little later each time. */
function notYetProjected(message: BusMessage): Outcome {
  return { kind: 'retry', delayMs: Math.min(250 * message.deliveryCount, 10_000) };
}

/**
 * Delivers the environment's events to its endpoints. An `events` message fans out into one
 * `deliveries` message per subscribed endpoint (ids derived from the event message, so a repeat fans
 * out to the same ids); each delivery is one signed POST, recorded, then acked, retried later or dead.
 */
export class WebhookDispatcher {
  private readonly abort = new AbortController();
  private running: Promise<unknown> | undefined;

  constructor(
    private readonly services: { events: EventStore; readModels: ReadModelStore; bus: Bus; livemode: boolean },
    private readonly options: DispatcherOptions,
    private readonly logger: Logger,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  start(): void {
    this.running ??= Promise.all([this.keepConsuming('events', (m) => this.fanOut(m)), this.keepConsuming('deliveries', (m) => this.deliver(m))]);
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  /** Consumes until stopped, starting over after a failure of the bus (a dropped connection, say). */
  private async keepConsuming(topic: Topic, handler: Handler): Promise<void> {
    while (!this.abort.signal.aborted) {
      try {
        await this.services.bus.consume(topic, handler, {
          signal: this.abort.signal,
          onError: (error, message) => this.logger.error({ err: error, topic, message_id: message.id }, 'webhook bus message failed; it comes again'),
        });
      } catch (error) {
        if (this.abort.signal.aborted) return;
        this.logger.error({ err: error, topic }, 'webhook bus consumer failed; resuming');
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  private async fanOut(message: BusMessage): Promise<Outcome> {
    const { event_id } = message.payload as EventMessage;
    const event = await this.services.readModels.get('events', event_id);
    if (!event) return notYetProjected(message);
    if (await this.subjectErased(event)) return { kind: 'ack' };
    for (const endpoint of await this.enabledEndpoints()) {
      if (!subscribes(endpoint, event.type as EventType)) continue;
      const delivery: DeliveryMessage = { event_id, endpoint_id: endpoint.id };
      await this.services.bus.publish('deliveries', `${message.id}:${endpoint.id}`, delivery);
    }
    return { kind: 'ack' };
  }

  /** Deliveries of an erased subject's events are cancelled: acked unsent. */
  private async subjectErased(event: Document): Promise<boolean> {
    const subject = await this.services.readModels.get('subjects', (event.data as EventData).subject_id);
    if (subject?.status !== 'erased') return false;
    this.logger.info({ event_id: event.id }, 'webhook delivery cancelled: the subject was erased');
    return true;
  }

  private async enabledEndpoints(): Promise<WebhookEndpoint[]> {
    const endpoints: WebhookEndpoint[] = [];
    let startingAfter: string | undefined;
    for (;;) {
      const page = await this.services.readModels.list('webhook_endpoints', {
        where: { status: 'enabled' },
        limit: 100,
        ...(startingAfter !== undefined && { startingAfter }),
      });
      endpoints.push(...(page.data as unknown as WebhookEndpoint[]));
      if (!page.hasMore) return endpoints;
      startingAfter = page.data.at(-1)!.id;
    }
  }

  private async deliver(message: BusMessage): Promise<Outcome> {
    const { event_id, endpoint_id } = message.payload as DeliveryMessage;
    const endpoint = (await this.services.readModels.get('webhook_endpoints', endpoint_id)) as unknown as WebhookEndpoint | undefined;
    // Deleted or disabled since the fan-out: nothing to deliver to.
    if (endpoint?.status !== 'enabled') return { kind: 'ack' };
    const event = await this.services.readModels.get('events', event_id);
    if (!event) return notYetProjected(message);
    // Pending deliveries (retries included) of an erased subject's events stop here.
    if (await this.subjectErased(event)) return { kind: 'ack' };

    const attempt = (await attemptsSoFar(this.services.events, message.id)) + 1;
    const sent = await this.post(endpoint, event);
    const now = this.clock();
    const verdict = judgeAttempt(sent, attempt, this.options.retryScheduleMs);
    await recordAttempt(this.services.events, message.id, {
      event_id,
      endpoint_id,
      attempt,
      outcome: verdict.outcome,
      status_code: sent.status_code,
      error: sent.error,
      duration_ms: sent.duration_ms,
      response_excerpt: sent.response_excerpt,
      attempted_at: now.toISOString(),
      next_attempt_at: verdict.retryInMs === null ? null : new Date(now.getTime() + verdict.retryInMs).toISOString(),
    });
    this.logger.info({ event_id, endpoint_id, attempt, outcome: verdict.outcome, status_code: sent.status_code }, 'webhook attempt');
    switch (verdict.outcome) {
      case 'succeeded':
        return { kind: 'ack' };
      case 'endpoint_gone':
        await disableEndpoint(this.services.events, endpoint_id, 'The endpoint answered 410 Gone.', now);
        return { kind: 'ack' };
      case 'retrying':
        return { kind: 'retry', delayMs: verdict.retryInMs! };
      case 'failed':
        return { kind: 'dead', reason: `no 2xx after ${attempt} attempts` };
    }
  }

  /** The Standard Webhooks request: webhook-id is the event id, stable across retries. */
  private post(endpoint: WebhookEndpoint, event: Document) {
    const body = JSON.stringify(eventObject(event, this.services.livemode));
    const timestamp = Math.floor(this.clock().getTime() / 1000);
    return send({
      url: endpoint.url,
      body,
      headers: {
        'webhook-id': event.id,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': sign(endpoint.secret, event.id, timestamp, body),
      },
      timeoutMs: this.options.timeoutMs,
      livemode: this.services.livemode,
    });
  }
}
