import { join } from 'node:path';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteBus } from '../../src/adapters/sqlite/bus.js';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import { toNewEvents } from '../../src/commands/handle-command.js';
import { recordAttempt, redeliveriesOf } from '../../src/commands/webhooks.js';
import type { ScoringCompleted } from '../../src/domain/assessment.js';
import { deliveryStream, judgeAttempt, supersedingRedelivery, type WebhookDeliveryAttempted } from '../../src/domain/webhook-delivery.js';
import { endpointStream, type WebhookEndpointCreated } from '../../src/domain/webhook-endpoint.js';
import { newSecret } from '../../src/domain/webhook-secrets.js';
import type { Bus, Handler, Outcome, Topic } from '../../src/ports/bus.js';
import type { AssessmentEventData, WebhookEvent } from '../../src/ports/collections.js';
import type { Recorded } from '../../src/ports/event-store.js';
import { type EventStore, StreamDeletedError } from '../../src/ports/event-store.js';
import { FencedOffError, type ReadModelStore } from '../../src/ports/read-models.js';
import { eventsProjection } from '../../src/projections/events.js';
import { publisherReactor } from '../../src/projections/publisher.js';
import { webhookEndpointsProjection } from '../../src/projections/webhook-endpoints.js';
import {
  DELIVERY_SLOTS,
  type DispatcherServices,
  POSTS_PER_ENDPOINT,
  queueRedelivery,
  SLOTS_PER_ENDPOINT,
  WebhookDispatcher,
} from '../../src/webhooks/dispatcher.js';
import { EndpointSlots } from '../../src/webhooks/endpoint-slots.js';
import type { DeliveryMessage } from '../../src/webhooks/messages.js';
import { sign } from '../../src/webhooks/signer.js';
import { eventually } from '../support/eventually.js';
import { type Behaviour, receiverPool } from '../support/receiver.js';
import { tempDir } from '../support/temp-dir.js';

describe('signer', () => {
  it('signs exactly as the Standard Webhooks reference library does', () => {
    const secret = newSecret();
    const at = new Date('2026-11-21T10:00:00Z');
    const body = JSON.stringify({ id: 'evt_1', data: { n: 'é' } });
    expect(sign(secret, 'evt_1', at.getTime() / 1000, body)).toBe(new Webhook(secret).sign('evt_1', at, body));
  });

  it('makes a new 32-byte secret every time', () => {
    const secret = newSecret();
    expect(Buffer.from(secret.slice('whsec_'.length), 'base64')).toHaveLength(32);
    expect(newSecret()).not.toBe(secret);
  });
});

describe('judging an attempt', () => {
  const schedule = [5_000, 300_000];
  it.each([
    [{ status_code: 200, error: null }, 1, 'succeeded', null],
    [{ status_code: 204, error: null }, 3, 'succeeded', null],
    [{ status_code: 410, error: null }, 1, 'endpoint_gone', null],
    [{ status_code: 301, error: null }, 1, 'retrying', 5_000],
    [{ status_code: 500, error: null }, 2, 'retrying', 300_000],
    [{ status_code: null, error: 'ECONNREFUSED' }, 1, 'retrying', 5_000],
    [{ status_code: 500, error: null }, 3, 'failed', null],
  ] as const)('judges %o on attempt %i as %s', (result, attempt, outcome, retryInMs) => {
    expect(judgeAttempt(result, attempt, schedule)).toEqual({ outcome, retryInMs });
  });
});

describe('the redelivery that supersedes a scheduled retry', () => {
  const request = (position: bigint, redelivery: string, endpoint_id: string | null) => ({
    position,
    data: { event_id: 'evt_1', endpoint_id, redelivery },
  });
  const original = { id: 'evt_1:whe_a', endpointId: 'whe_a', listens: true, firstAttemptAt: 10n };
  it.each([
    ['one to the endpoint, asked after the first attempt', [request(20n, 'r1', 'whe_a')], original, 'r1'],
    ['one to every endpoint, when the endpoint listens', [request(20n, 'r1', null)], original, 'r1'],
    ['none to every endpoint, when it no longer listens', [request(20n, 'r1', null)], { ...original, listens: false }, undefined],
    ['none to another endpoint', [request(20n, 'r1', 'whe_b')], original, undefined],
    ['none asked before the delivery began', [request(5n, 'r1', 'whe_a')], original, undefined],
    [
      "none that is the delivery's own request, recorded after its first attempt",
      [request(20n, 'r1', 'whe_a')],
      { ...original, id: 'r1:whe_a', firstAttemptAt: 15n },
      undefined,
    ],
    [
      'of two redeliveries, the later for the earlier',
      [request(20n, 'r1', 'whe_a'), request(21n, 'r2', null)],
      { ...original, id: 'r1:whe_a', firstAttemptAt: 25n },
      'r2',
    ],
    [
      'of two redeliveries, never the earlier for the later',
      [request(20n, 'r1', 'whe_a'), request(21n, 'r2', null)],
      { ...original, id: 'r2:whe_a', firstAttemptAt: 22n },
      undefined,
    ],
  ] as const)('%s', (_case, requests, delivery, superseding) => {
    expect(supersedingRedelivery(requests, delivery)).toBe(superseding);
  });
});

describe('webhook dispatcher', () => {
  let dir: ReturnType<typeof tempDir>;
  let log: SqliteEventStore;
  let readModels: SqliteReadModelStore;
  let bus: SqliteBus;
  let dispatcher: WebhookDispatcher | undefined;
  /** The streams the dispatcher read from the log. */
  let streamsRead: string[];
  /** The read-model collections the dispatcher read a document of, once per read. */
  let documentsRead: string[];
  /** What the dispatcher published: `topic:id`. */
  let published: string[];
  /** What became of each message the dispatcher handled, in order. */
  let handled: { id: string; outcome: Outcome['kind'] }[];
  const receivers = receiverPool();
  beforeEach(() => {
    dir = tempDir();
    log = new SqliteEventStore(join(dir.path, 'events.db'), 'FULL');
    // A poll longer than any test: every message below reaches the dispatcher by a wake-up.
    bus = new SqliteBus(join(dir.path, 'events.db'), 'FULL', { pollIntervalMs: 3_600_000 });
    readModels = new SqliteReadModelStore(join(dir.path, 'read.db'), 'NORMAL');
    streamsRead = [];
    documentsRead = [];
    published = [];
    handled = [];
  });
  afterEach(async () => {
    await dispatcher?.stop();
    dispatcher = undefined;
    await receivers.closeAll();
    await bus.close();
    await readModels.close();
    await log.close();
    dir.cleanup();
  });

  /**
   * By default the read models are taken to be up to date, as they are once the test wrote them, and the
   * dispatcher's replica leads throughout.
   */
  function start(
    readModelsAt: DispatcherServices['readModelsAt'] = async () => true,
    timeoutMs = 2000,
    guard: DispatcherServices['guard'] = async () => undefined,
  ): void {
    const events: EventStore = Object.assign(Object.create(log) as EventStore, {
      readStream: (stream: string) => {
        streamsRead.push(stream);
        return log.readStream(stream);
      },
    });
    const documents: ReadModelStore = Object.assign(Object.create(readModels) as ReadModelStore, {
      get: (collection: string, id: string) => {
        documentsRead.push(collection);
        return readModels.get(collection, id);
      },
    });
    const publishing: Bus = Object.assign(Object.create(bus) as Bus, {
      publish: (topic: Topic, id: string, payload: unknown) => {
        published.push(`${topic}:${id}`);
        return bus.publish(topic, id, payload);
      },
      consume: (topic: Topic, handler: Handler, options: Parameters<Bus['consume']>[2]) =>
        bus.consume(
          topic,
          async (message) => {
            const outcome = await handler(message);
            handled.push({ id: message.id, outcome: outcome.kind });
            return outcome;
          },
          options,
        ),
    });
    dispatcher = new WebhookDispatcher(
      { events, readModels: documents, bus: publishing, endpointRules: { livemode: false, loopback: true }, readModelsAt, guard },
      { retryScheduleMs: [50], timeoutMs },
      pino({ level: 'silent' }),
    );
    dispatcher.start();
  }

  /** A guard that refuses (another replica leads) until `lead()`; `asked` counts its calls. */
  function term() {
    const t = {
      leading: false,
      asked: 0,
      lead: () => {
        t.leading = true;
      },
    };
    const guard = async () => {
      t.asked += 1;
      if (!t.leading) throw new FencedOffError({ lease: 'leader', token: 1 });
    };
    return { t, guard };
  }

  async function register(url: string): Promise<Recorded<WebhookEndpointCreated>> {
    const created: WebhookEndpointCreated = {
      type: 'WebhookEndpointCreated',
      data: {
        endpoint_id: `whe_${Math.random().toString(36).slice(2)}`,
        url,
        enabled_events: ['nature.assessment.completed'],
        description: null,
        secret: newSecret(),
        created_at: new Date().toISOString(),
      },
    };
    await log.appendToStream(endpointStream(created.data.endpoint_id), toNewEvents([created], {}), 'no_stream');
    return (await log.readStream(endpointStream(created.data.endpoint_id))).events[0] as Recorded<WebhookEndpointCreated>;
  }

  async function project(registration: Recorded<WebhookEndpointCreated>): Promise<void> {
    const doc = webhookEndpointsProjection.evolve(undefined, registration);
    await readModels.commit('webhook_endpoints', registration.position, [
      { collection: 'webhook_endpoints', id: webhookEndpointsProjection.documentId(registration), doc },
    ]);
  }

  /** A completion in the log, published as the server's publisher does; the events projection never runs here. */
  async function complete(): Promise<Recorded<ScoringCompleted>> {
    const data: ScoringCompleted['data'] = {
      assessment_id: 'asm_1',
      subject_id: 'sub_1',
      profile_id: `prf_${Math.random().toString(36).slice(2)}`,
      event_id: `evt_${Math.random().toString(36).slice(2)}`,
      scoring_version: 'mn76-v2',
      language: 'en',
      completed_at: '2026-11-21T10:00:00.000Z',
      pii: null,
    };
    await log.appendToStream('assessment-asm_1', toNewEvents([{ type: 'ScoringCompleted', data }], {}), 'any');
    const completed = (await log.readStream('assessment-asm_1')).events.at(-1) as Recorded<ScoringCompleted>;
    await publisherReactor(log, bus).react(completed);
    return completed;
  }

  it('delivers the event its bus message carries, without the events read model or a read of the assessment', async () => {
    const r = await receivers.start();
    await project(await register(r.url));
    const completed = await complete();
    start();
    const [delivery] = await r.waitFor(1);
    const { event_id, profile_id, assessment_id, subject_id, completed_at } = completed.data as ScoringCompleted['data'];
    expect(JSON.parse(delivery!.body)).toEqual({
      id: event_id,
      object: 'event',
      type: 'nature.assessment.completed',
      created_at: completed_at,
      livemode: false,
      data: { profile_id, assessment_id, subject_id },
    });
    expect(await readModels.get('events', event_id)).toBeUndefined();
    expect(streamsRead.filter((stream) => stream.startsWith('assessment-'))).toEqual([]);
  });

  it('lists endpoints only once the read models hold the event, so one registered just before it is not missed', async () => {
    const r = await receivers.start();
    // Registered before the completion, but not projected yet: the projector lags behind the publisher.
    const registration = await register(r.url);
    const completed = await complete();
    const asked: bigint[] = [];
    start(async (position) => {
      asked.push(position);
      await project(registration);
      return true;
    });
    await r.waitFor(1);
    expect(asked).toEqual([completed.position]);
  });

  it('fans out again later when the read models do not reach the event in time', async () => {
    const r = await receivers.start();
    const registration = await register(r.url);
    await complete();
    let asked = 0;
    start(async () => {
      asked += 1;
      if (asked === 1) return false;
      await project(registration);
      return true;
    });
    await r.waitFor(1);
    expect(asked).toBe(2);
  });

  /** A completion in the log and its webhook event, queued to no endpoint (none is registered before it). */
  async function completedEvent(): Promise<Extract<WebhookEvent, { data: AssessmentEventData }>> {
    return eventsProjection.evolve(undefined, await complete()) as Extract<WebhookEvent, { data: AssessmentEventData }>;
  }

  /** A completion, a projected endpoint with its receiver, and the successful attempt a delivery of it records. */
  async function deliveredBefore() {
    const event = await completedEvent();
    const r = await receivers.start();
    const registration = await register(r.url);
    await project(registration);
    const { endpoint_id, secret } = registration.data as WebhookEndpointCreated['data'];
    r.useSecret(secret);
    const attempt = {
      event_id: event.id,
      endpoint_id,
      outcome: 'succeeded',
      status_code: 200,
      error: null,
      duration_ms: 3,
      response_excerpt: 'ok',
      next_attempt_at: null,
    } as const;
    return { event, r, endpoint_id, secret, attempt };
  }

  it('publishes no delivery while its guard says another replica leads, and fans out once it leads again', async () => {
    const r = await receivers.start();
    await project(await register(r.url));
    await complete();
    const { t, guard } = term();
    start(undefined, undefined, guard);
    await expect.poll(() => t.asked).toBeGreaterThan(0);
    expect(published.filter((p) => p.startsWith('deliveries:'))).toEqual([]);
    t.lead();
    await r.waitFor(1);
    expect(published.filter((p) => p.startsWith('deliveries:'))).toHaveLength(1);
  });

  it('sends no POST while its guard says another replica leads, and records no attempt; the delivery goes once it leads again', async () => {
    const { event, r, endpoint_id } = await deliveredBefore();
    await bus.publish('deliveries', 'guarded', { event, endpoint_id } satisfies DeliveryMessage);
    const { t, guard } = term();
    start(undefined, undefined, guard);
    await expect.poll(() => t.asked).toBeGreaterThan(0);
    expect(r.received).toHaveLength(0);
    expect((await log.readStream(deliveryStream('guarded'))).events).toEqual([]);
    t.lead();
    await r.waitFor(1);
    await expect.poll(async () => (await log.readStream(deliveryStream('guarded'))).events.length).toBe(1);
  });

  it("fans out to the other endpoints when one endpoint's stream was deleted from the log by an operator (a tombstone)", async () => {
    const [gone, kept] = [await receivers.start(), await receivers.start()];
    const [goneEndpoint, keptEndpoint] = [await register(gone.url), await register(kept.url)];
    await project(goneEndpoint);
    await project(keptEndpoint);
    const tombstoned = goneEndpoint.streamName;
    const readStream = log.readStream.bind(log);
    Object.assign(log, {
      readStream: (stream: string) => (stream === tombstoned ? Promise.reject(new StreamDeletedError(stream)) : readStream(stream)),
    });
    await complete();
    start();
    await kept.waitFor(1);
    expect(gone.received).toHaveLength(0);
  });

  it('carries on a field of the event it does not know (one a newer replica added) rather than drop it', async () => {
    const { event, r, endpoint_id } = await deliveredBefore();
    const newer = { ...event, data: { ...event.data, coaching_url: 'https://example.com/c/1' } };
    await bus.publish('deliveries', 'newer', { event: newer, endpoint_id } satisfies DeliveryMessage);
    start();
    const [delivery] = await r.waitFor(1);
    expect(JSON.parse(delivery!.body).data).toMatchObject({
      coaching_url: 'https://example.com/c/1',
      assessment_id: event.data.assessment_id,
    });
  });

  it('does not POST a delivery whose success is recorded already (its message came again after the duplicate window)', async () => {
    const { event, r, endpoint_id, attempt } = await deliveredBefore();
    await recordAttempt(log, 'delivered-before', { ...attempt, attempt: 1, attempted_at: new Date().toISOString() });
    await bus.publish('deliveries', 'delivered-before', { event, endpoint_id } satisfies DeliveryMessage);
    await bus.publish('deliveries', 'never-delivered', { event, endpoint_id } satisfies DeliveryMessage);
    start();
    await r.waitFor(1);
    await expect.poll(async () => (await log.readStream(deliveryStream('never-delivered'))).events.length).toBe(1);
    // The settled delivery was acked unsent: one POST, and its record still holds its one attempt.
    expect(r.received).toHaveLength(1);
    expect((await log.readStream(deliveryStream('delivered-before'))).events).toHaveLength(1);
    expect(await bus.deadLetters('deliveries')).toEqual([]);
  });

  it('records what each attempt sent: the headers it set and the body as signed, never the secret', async () => {
    const { event, r, endpoint_id, secret } = await deliveredBefore();
    await bus.publish('deliveries', 'kept-request', { event, endpoint_id } satisfies DeliveryMessage);
    start();
    const [received] = await r.waitFor(1);
    await expect.poll(async () => (await log.readStream(deliveryStream('kept-request'))).events.length).toBe(1);
    const [recorded] = (await log.readStream(deliveryStream('kept-request'))).events;
    const { request } = recorded!.data as WebhookDeliveryAttempted['data'];
    expect(request).toEqual({
      headers: {
        'content-type': 'application/json',
        'user-agent': 'NatureProfileAPI-Webhooks/1',
        'webhook-id': event.id,
        'webhook-timestamp': received!.headers['webhook-timestamp'],
        'webhook-signature': received!.headers['webhook-signature'],
      },
      body: received!.body,
    });
    expect(received!.verified.ok).toBe(true);
    expect(JSON.stringify(recorded!.data)).not.toContain(secret.slice('whsec_'.length));
  });

  /** The event projected (a redelivery names it only) and its first delivery queued as the fan-out queues it, as `original`. */
  async function firstDelivery(behaviour: Behaviour) {
    const event = await completedEvent();
    await readModels.commit('events', 1n, [{ collection: 'events', id: event.id, doc: event }]);
    const r = await receivers.start(behaviour);
    const registration = await register(r.url);
    await project(registration);
    const { endpoint_id } = registration.data as WebhookEndpointCreated['data'];
    await bus.publish('deliveries', 'original', { event, endpoint_id } satisfies DeliveryMessage);
    return { event, r, endpoint_id };
  }

  /** The first attempt fails, then the dispatcher stops (a restart): its retry falls due while none runs. */
  async function failedOnceThenRestarting(behaviour: Behaviour) {
    const delivery = await firstDelivery(behaviour);
    start();
    await expect.poll(() => handled.filter((h) => h.id === 'original').map((h) => h.outcome)).toEqual(['retry']);
    await dispatcher!.stop();
    return delivery;
  }

  /** The delivery the one redelivery asked of the event queued to the endpoint. */
  const redeliveryOf = async (eventId: string, endpointId: string) =>
    `${(await redeliveriesOf(log, eventId))[0]!.data.redelivery}:${endpointId}`;

  const attemptsOf = async (deliveryId: string) =>
    (await log.readStream(deliveryStream(deliveryId))).events.map((e) => (e.data as WebhookDeliveryAttempted['data']).outcome);

  it('drops a retry that a redelivery of the event to the endpoint superseded, after a restart: the endpoint gets it twice in all', async () => {
    const { event, r, endpoint_id } = await failedOnceThenRestarting((n) => (n === 1 ? 500 : 200));
    await queueRedelivery({ events: log, bus }, event.id, endpoint_id, {});
    start();
    // The old retry was due long since: once it is handled, and the redelivery arrived, nothing more can come.
    await r.waitFor(2);
    await expect.poll(() => handled.filter((h) => h.id === 'original').map((h) => h.outcome)).toEqual(['retry', 'ack']);
    expect(r.received).toHaveLength(2);
    expect(await attemptsOf('original')).toEqual(['retrying']);
    const redelivery = await redeliveryOf(event.id, endpoint_id);
    await expect.poll(() => attemptsOf(redelivery)).toEqual(['succeeded']);
  });

  it('retries a redelivery that fails on its own schedule, from its first delay, while the superseded retry stays unsent', async () => {
    const { event, r, endpoint_id } = await failedOnceThenRestarting((n) => (n <= 2 ? 503 : 200));
    await queueRedelivery({ events: log, bus }, event.id, endpoint_id, {});
    start();
    await r.waitFor(3);
    const redelivery = await redeliveryOf(event.id, endpoint_id);
    await expect.poll(() => attemptsOf(redelivery)).toEqual(['retrying', 'succeeded']);
    await expect.poll(() => handled.filter((h) => h.id === 'original').map((h) => h.outcome)).toEqual(['retry', 'ack']);
    expect(r.received).toHaveLength(3);
    expect(await attemptsOf('original')).toEqual(['retrying']);
  });

  it('sends a retry that no redelivery superseded (one to another endpoint)', async () => {
    const { event, r } = await failedOnceThenRestarting((n) => (n === 1 ? 500 : 200));
    const other = await receivers.start();
    const otherRegistration = await register(other.url);
    await project(otherRegistration);
    await queueRedelivery({ events: log, bus }, event.id, (otherRegistration.data as WebhookEndpointCreated['data']).endpoint_id, {});
    start();
    await other.waitFor(1);
    await r.waitFor(2);
    await expect.poll(() => attemptsOf('original')).toEqual(['retrying', 'succeeded']);
  });

  it('gives an endpoint that never answers a few deliveries at once, so another endpoint still gets its own', async () => {
    const event = await completedEvent();
    const silent = await receivers.start(() => 'hang');
    const healthy = await receivers.start();
    const [silentEndpoint, healthyEndpoint] = [await register(silent.url), await register(healthy.url)];
    await project(silentEndpoint);
    await project(healthyEndpoint);
    const id = (registration: Recorded<WebhookEndpointCreated>) => registration.data.endpoint_id;
    // More deliveries to the silent endpoint than the dispatcher has slots, queued ahead of the healthy one's.
    for (let i = 0; i < DELIVERY_SLOTS + SLOTS_PER_ENDPOINT; i++)
      await bus.publish('deliveries', `silent-${i}`, { event, endpoint_id: id(silentEndpoint) } satisfies DeliveryMessage);
    await bus.publish('deliveries', 'healthy', { event, endpoint_id: id(healthyEndpoint) } satisfies DeliveryMessage);
    // Each silent POST waits a minute: longer than the test.
    start(undefined, 60_000);
    try {
      await healthy.waitFor(1);
      await silent.waitFor(POSTS_PER_ENDPOINT);
      // The deliveries turned away come back and are turned away again (each time after one read of the
      // endpoint): once every one of them has been turned away twice more, still only an endpoint's POSTs at once were sent.
      const endpointReads = () => documentsRead.filter((collection) => collection === 'webhook_endpoints').length;
      const before = endpointReads();
      await eventually(async () => (endpointReads() >= before + 2 * DELIVERY_SLOTS ? true : undefined));
      expect(silent.received).toHaveLength(POSTS_PER_ENDPOINT);
    } finally {
      // Its POSTs fail at once rather than hold the dispatcher's stop for a minute.
      await silent.close();
    }
  });

  it("turns a delivery away from a busy endpoint after one read, not the subject's and the delivery's too", async () => {
    const event = await completedEvent();
    const silent = await receivers.start(() => 'hang');
    const registration = await register(silent.url);
    await project(registration);
    const endpoint_id = (registration.data as WebhookEndpointCreated['data']).endpoint_id;
    const queued = SLOTS_PER_ENDPOINT + 16;
    for (let i = 0; i < queued; i++) await bus.publish('deliveries', `busy-${i}`, { event, endpoint_id } satisfies DeliveryMessage);
    start(undefined, 60_000);
    try {
      await silent.waitFor(POSTS_PER_ENDPOINT);
      // The 16 turned away come back every few milliseconds, and are turned away again: wait for a round of them.
      await eventually(async () =>
        documentsRead.filter((collection) => collection === 'webhook_endpoints').length > queued + 16 ? true : undefined,
      );
      // Only the deliveries that got a slot read the subject and their delivery record (one more read of the
      // subject is the fan-out's, of the completion's own message); of them, the endpoint's POSTs at once went out,
      // and the others wait in the delivery thread.
      expect(documentsRead.filter((collection) => collection === 'subjects')).toHaveLength(SLOTS_PER_ENDPOINT + 1);
      expect(streamsRead.filter((stream) => stream.startsWith('webhook_delivery-'))).toHaveLength(SLOTS_PER_ENDPOINT);
      expect(silent.received).toHaveLength(POSTS_PER_ENDPOINT);
    } finally {
      await silent.close();
    }
  });

  it('asks the guard again for a delivery that waited its longest in the thread, so a deposed leader does not send it', async () => {
    const event = await completedEvent();
    const silent = await receivers.start(() => 'hang');
    const registration = await register(silent.url);
    await project(registration);
    const endpoint_id = (registration.data as WebhookEndpointCreated['data']).endpoint_id;
    // One more than the endpoint's POSTs at once: it waits in the thread behind POSTs that never end.
    for (let i = 0; i <= POSTS_PER_ENDPOINT; i++)
      await bus.publish('deliveries', `queued-${i}`, { event, endpoint_id } satisfies DeliveryMessage);
    const { t, guard } = term();
    t.lead();
    start(undefined, 60_000, guard);
    try {
      await silent.waitFor(POSTS_PER_ENDPOINT);
      await eventually(async () => (t.asked > POSTS_PER_ENDPOINT ? true : undefined));
      // Another replica leads now: once the waiting delivery is handed back, its guard refuses it.
      t.leading = false;
      const asked = t.asked;
      await eventually(async () => (t.asked > asked ? true : undefined));
      expect(silent.received).toHaveLength(POSTS_PER_ENDPOINT);
      expect((await log.readStream(deliveryStream(`queued-${POSTS_PER_ENDPOINT}`))).events).toHaveLength(0);
    } finally {
      await silent.close();
    }
  });

  it('gives the slot back when a delivery ends before its POST, so later deliveries to the endpoint still go out', async () => {
    const { event, r, endpoint_id, attempt } = await deliveredBefore();
    // More settled deliveries than an endpoint has slots, each acked unsent once it has taken one.
    for (let i = 0; i < 10; i++) {
      await recordAttempt(log, `settled-${i}`, { ...attempt, attempt: 1, attempted_at: new Date().toISOString() });
      await bus.publish('deliveries', `settled-${i}`, { event, endpoint_id } satisfies DeliveryMessage);
    }
    // And deliveries of an event the read models do not hold yet: each looks again later.
    for (let i = 0; i < 10; i++)
      await bus.publish('deliveries', `unprojected-${i}`, { event_id: 'evt_not_yet', endpoint_id } satisfies DeliveryMessage);
    await bus.publish('deliveries', 'fresh', { event, endpoint_id } satisfies DeliveryMessage);
    start();
    await r.waitFor(1);
    await expect.poll(async () => (await log.readStream(deliveryStream('fresh'))).events.length).toBe(1);
    expect(r.received).toHaveLength(1);
  });

  it('stops at once while it waits to consume again after the bus failed', async () => {
    let consumed = 0;
    const failing: Bus = Object.assign(Object.create(bus) as Bus, {
      consume: async () => {
        consumed += 1;
        throw new Error('bus down');
      },
    });
    dispatcher = new WebhookDispatcher(
      {
        events: log,
        readModels,
        bus: failing,
        endpointRules: { livemode: false, loopback: true },
        readModelsAt: async () => true,
        guard: async () => undefined,
      },
      { retryScheduleMs: [50], timeoutMs: 2000 },
      pino({ level: 'silent' }),
    );
    dispatcher.start();
    // Both consumers failed three times: each now waits two seconds before its fourth try.
    await expect.poll(() => consumed, { timeout: 5000 }).toBeGreaterThanOrEqual(6);
    const stopping = performance.now();
    await dispatcher.stop();
    dispatcher = undefined;
    // Well inside that wait: a stop that sat it out would take about two seconds.
    expect(performance.now() - stopping).toBeLessThan(1000);
  });
});

describe('endpoint slots', () => {
  it('lets an endpoint hold a few deliveries at once and spaces the turns of the others by how long its POSTs take', () => {
    let now = 0;
    const slots = new EndpointSlots(2, () => now);
    const first = slots.take('whe_a');
    const second = slots.take('whe_a');
    expect('release' in first && 'release' in second).toBe(true);
    // Before any delivery has ended, one is taken to last 20 ms: a turn every 10 ms.
    expect(slots.take('whe_a')).toEqual({ retryInMs: 10 });
    expect(slots.take('whe_a')).toEqual({ retryInMs: 20 });
    // Another endpoint is not held back.
    expect('release' in slots.take('whe_b')).toBe(true);
    now = 2000;
    if ('release' in first) first.release(10_000);
    if ('release' in second) second.release(10_000);
    const again = [slots.take('whe_a'), slots.take('whe_a')];
    expect(again.every((slot) => 'release' in slot)).toBe(true);
    // Deliveries that time out after 10 s space the turns further apart.
    const turn = slots.take('whe_a');
    expect('retryInMs' in turn && turn.retryInMs).toBeGreaterThan(1000);
  });

  it('learns nothing from a slot given back without a POST, and gives a slot released twice back once', () => {
    const now = 0;
    const slots = new EndpointSlots(2, () => now);
    const first = slots.take('whe_a');
    if (!('release' in first)) throw new Error('expected a slot');
    // Given back unsent (a delivery settled already, say), twice over: it frees one slot and teaches no duration.
    first.release();
    first.release();
    const held = [slots.take('whe_a'), slots.take('whe_a')];
    expect(held.every((slot) => 'release' in slot)).toBe(true);
    // Still the first guess of 20 ms a delivery: a turn every 10 ms.
    expect(slots.take('whe_a')).toEqual({ retryInMs: 10 });
  });
});
