import { newId } from '../domain/ids.js';
import {
  type DeliveryOutcome,
  deliveryStream,
  redeliveryStream,
  type WebhookDeliveryAttempted,
  type WebhookRedeliveryRequested,
} from '../domain/webhook-delivery.js';
import {
  decideDeleteEndpoint,
  decideDisableEndpoint,
  decideRotateSecret,
  decideUpdateEndpoint,
  type EndpointChanges,
  type EventType,
  endpointRequestStream,
  endpointStream,
  type WebhookEndpoint,
  type WebhookEndpointCreated,
  type WebhookEndpointEvent,
  type WebhookEndpointIdChosen,
  type WebhookEndpointState,
} from '../domain/webhook-endpoint.js';
import { newSecret } from '../domain/webhook-secrets.js';
import type { EventMetadata, EventStore, Recorded } from '../ports/event-store.js';
import { readAggregate } from './aggregate.js';
import { deliveryAttempts, endpointAggregate, endpointChoiceAggregate, redeliveryRequests } from './aggregates.js';
import { type CommandContext, READ_YOUR_WRITES_TIMEOUT_MS } from './context.js';
import { type CommandResult, handleCommand, toNewEvents } from './handle-command.js';

/**
 * Registers an endpoint. With an Idempotency-Key, the id is chosen on a stream named by the key's tag first, so
 * a retry after a crash finds that endpoint (and answers it, secret included) instead of registering another.
 */
export async function createEndpoint(
  env: CommandContext,
  input: { url: string; enabled_events: EventType[]; description: string | null },
  metadata: EventMetadata,
  now: Date,
): Promise<{ endpoint: WebhookEndpoint; replayedAt?: Date }> {
  const endpointId =
    metadata.idempotency === undefined ? newId('whe') : await chosenEndpointId(env.events, metadata.idempotency, metadata, now);
  const created: WebhookEndpointCreated = {
    type: 'WebhookEndpointCreated',
    // A type listed twice is listened to once: the first mention keeps its place.
    data: {
      endpoint_id: endpointId,
      ...input,
      enabled_events: [...new Set(input.enabled_events)],
      secret: newSecret(),
      created_at: now.toISOString(),
    },
  };
  const result = await onEndpoint(env.events, endpointId, () => [created], metadata, now);
  return settle(env, result);
}

/** The endpoint id this request chose before a crash, or one it chooses now. */
async function chosenEndpointId(events: EventStore, tag: string, metadata: EventMetadata, now: Date): Promise<string> {
  const chosen: WebhookEndpointIdChosen = { type: 'WebhookEndpointIdChosen', data: { endpoint_id: newId('whe') } };
  const { state } = await handleCommand(events, endpointRequestStream(tag), endpointChoiceAggregate, () => [chosen], metadata, now);
  return state!;
}

export async function deleteEndpoint(env: CommandContext, endpointId: string, metadata: EventMetadata, now: Date): Promise<void> {
  const result = await onEndpoint(env.events, endpointId, (state) => decideDeleteEndpoint(state, endpointId, now), metadata, now);
  if (result.appended) await env.projector.waitFor(result.appended.position, READ_YOUR_WRITES_TIMEOUT_MS);
}

/** The dispatcher retires an endpoint (410 Gone, retries exhausted); true if this call disabled it. */
export async function disableEndpoint(events: EventStore, endpointId: string, reason: string, now: Date): Promise<boolean> {
  const result = await onEndpoint(
    events,
    endpointId,
    (state) => decideDisableEndpoint(state, reason, now),
    { causation: 'webhook_dispatcher' },
    now,
  );
  return result.appended !== undefined;
}

/** Changes url, enabled_events, description or status; answers the endpoint as it now stands. */
export async function updateEndpoint(
  env: CommandContext,
  endpointId: string,
  changes: EndpointChanges,
  metadata: EventMetadata,
  now: Date,
): Promise<{ endpoint: WebhookEndpoint; replayedAt?: Date }> {
  return settle(
    env,
    await onEndpoint(env.events, endpointId, (state) => decideUpdateEndpoint(state, endpointId, changes, now), metadata, now),
  );
}

/** A new secret, answered once; the replaced one also signs for `overlapSeconds`. */
export async function rotateEndpointSecret(
  env: CommandContext,
  endpointId: string,
  overlapSeconds: number,
  metadata: EventMetadata,
  now: Date,
): Promise<{ endpoint: WebhookEndpoint; replayedAt?: Date }> {
  const secret = newSecret();
  return settle(
    env,
    await onEndpoint(env.events, endpointId, (state) => decideRotateSecret(state, endpointId, secret, overlapSeconds, now), metadata, now),
  );
}

/** A command on one endpoint's stream. */
function onEndpoint(
  events: EventStore,
  endpointId: string,
  decide: (state: WebhookEndpointState) => WebhookEndpointEvent[],
  metadata: EventMetadata,
  now: Date,
): Promise<CommandResult<WebhookEndpointState, WebhookEndpointEvent>> {
  return handleCommand(events, endpointStream(endpointId), endpointAggregate, decide, metadata, now);
}

/** Waits until the read models show the command's events (what the dispatcher reads), and answers the endpoint. */
async function settle(
  env: CommandContext,
  result: CommandResult<WebhookEndpointState, WebhookEndpointEvent>,
): Promise<{ endpoint: WebhookEndpoint; replayedAt?: Date }> {
  if (result.appended) await env.projector.waitFor(result.appended.position, READ_YOUR_WRITES_TIMEOUT_MS);
  return { endpoint: result.state!, replayedAt: result.replayedAt };
}

/**
 * What the log says of a delivery: how many attempts it has had (its schedule counts these, not how often
 * the bus handed it out), the last one's outcome, null before the first, and the first one's log position.
 */
export async function deliveryRecord(
  events: EventStore,
  deliveryId: string,
): Promise<{ attempts: number; outcome: DeliveryOutcome | null; firstAttemptAt: bigint | null }> {
  const { events: attempts } = await readAggregate<WebhookDeliveryAttempted>(events, deliveryStream(deliveryId), deliveryAttempts);
  return { attempts: attempts.length, outcome: attempts.at(-1)?.data.outcome ?? null, firstAttemptAt: attempts[0]?.position ?? null };
}

/** Records a redelivery asked for, once its message is queued: the retries then scheduled of the event give way to it. */
export async function recordRedelivery(
  events: EventStore,
  data: WebhookRedeliveryRequested['data'],
  metadata: EventMetadata,
): Promise<void> {
  const requested: WebhookRedeliveryRequested = { type: 'WebhookRedeliveryRequested', data };
  await events.appendToStream(redeliveryStream(data.event_id), toNewEvents([requested], metadata), 'any');
}

/** The redeliveries asked of an event, in the order of the log. */
export async function redeliveriesOf(events: EventStore, eventId: string): Promise<Recorded<WebhookRedeliveryRequested>[]> {
  return (await readAggregate<WebhookRedeliveryRequested>(events, redeliveryStream(eventId), redeliveryRequests)).events;
}

export async function recordAttempt(
  events: EventStore,
  deliveryId: string,
  attempt: Omit<WebhookDeliveryAttempted['data'], 'delivery_id'>,
): Promise<void> {
  const recorded: WebhookDeliveryAttempted = { type: 'WebhookDeliveryAttempted', data: { delivery_id: newId('whd'), ...attempt } };
  await events.appendToStream(deliveryStream(deliveryId), toNewEvents([recorded], { causation: 'webhook_dispatcher' }), 'any');
}
