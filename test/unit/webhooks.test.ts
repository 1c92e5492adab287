import { join } from 'node:path';
import { pino } from 'pino';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { publisherReactor } from '../../projections/publisher.js';
import { webhookEndpointsProjection } from '../../projections/webhook-endpoints.js';
import { SqliteBus } from '../../src/adapters/sqlite/bus.js';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import { toNewEvents } from '../../src/commands/handle-command.js';
import type { ScoringCompleted } from '../../src/domain/assessment.js';
import { judgeAttempt } from '../../src/domain/webhook-delivery.js';
import { type WebhookEndpointCreated, decideDeleteEndpoint, decideDisableEndpoint, endpointStream, evolveEndpoint } from '../../src/domain/webhook-endpoint.js';
import type { EventStore, RecordedEvent } from '../../src/ports/event-store.js';
import { type DispatcherServices, WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { newSecret, sign } from '../../src/webhooks/signer.js';
import { receiverPool } from '../support/receiver.js';
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

describe('webhook endpoint decider', () => {
  const now = new Date('2026-11-21T10:00:00Z');
  const created = evolveEndpoint(undefined, {
    type: 'WebhookEndpointCreated',
    data: { endpoint_id: 'whe_1', url: 'https://x.example/h', enabled_events: ['nature.assessment.completed'], description: null, secret: 's', created_at: now.toISOString() },
  });

  it('disables once, and never a deleted endpoint', () => {
    const disabled = decideDisableEndpoint(created, 'gone', now);
    expect(disabled).toHaveLength(1);
    const state = disabled.reduce(evolveEndpoint, created);
    expect(state).toMatchObject({ status: 'disabled', disabled_reason: 'gone' });
    expect(decideDisableEndpoint(state, 'gone', now)).toEqual([]);
    expect(decideDisableEndpoint(undefined, 'gone', now)).toEqual([]);
  });

  it('deletes an endpoint, after which it is gone', () => {
    const deleted = decideDeleteEndpoint(created, 'whe_1', now).reduce(evolveEndpoint, created);
    expect(deleted).toBeUndefined();
    expect(() => decideDeleteEndpoint(deleted, 'whe_1', now)).toThrowError(expect.objectContaining({ code: 'not_found' }));
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
  const receivers = receiverPool();
  beforeEach(() => {
    dir = tempDir();
    log = new SqliteEventStore(join(dir.path, 'events.db'), 'FULL');
    // A poll longer than any test: every message below reaches the dispatcher by a wake-up.
    bus = new SqliteBus(join(dir.path, 'events.db'), 'FULL', { pollIntervalMs: 3_600_000 });
    readModels = new SqliteReadModelStore(join(dir.path, 'read.db'), 'NORMAL');
    streamsRead = [];
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

  /** By default the read models are taken to be up to date, as they are once the test wrote them. */
  function start(readModelsAt: DispatcherServices['readModelsAt'] = async () => true): void {
    const events: EventStore = Object.assign(Object.create(log) as EventStore, {
      readStream: (stream: string) => (streamsRead.push(stream), log.readStream(stream)),
    });
    dispatcher = new WebhookDispatcher({ events, readModels, bus, livemode: false, readModelsAt }, { retryScheduleMs: [50], timeoutMs: 2000 }, pino({ level: 'silent' }));
    dispatcher.start();
  }

  async function register(url: string): Promise<RecordedEvent> {
    const created: WebhookEndpointCreated = {
      type: 'WebhookEndpointCreated',
      data: { endpoint_id: `whe_${Math.random().toString(36).slice(2)}`, url, enabled_events: ['nature.assessment.completed'], description: null, secret: newSecret(), created_at: new Date().toISOString() },
    };
    await log.appendToStream(endpointStream(created.data.endpoint_id), toNewEvents([created], {}), 'no_stream');
    return (await log.readStream(endpointStream(created.data.endpoint_id))).events[0]!;
  }

  async function project(registration: RecordedEvent): Promise<void> {
    const doc = webhookEndpointsProjection.evolve(undefined, registration);
    await readModels.commit('webhook_endpoints', registration.position, [{ collection: 'webhook_endpoints', id: webhookEndpointsProjection.documentId(registration), doc }]);
  }

  /** A completion in the log, published as the server's publisher does; the events projection never runs here. */
  async function complete(): Promise<RecordedEvent> {
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
    const completed = (await log.readStream('assessment-asm_1')).events.at(-1)!;
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
});
