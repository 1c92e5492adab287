import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Bus, Handler, Topic } from '../../src/ports/bus.js';
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js';
import { type Body, client } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { type NatsServer, natsServerPath, startNatsServer } from '../support/nats-server.js';
import { postgresBinDir, sharedPostgres } from '../support/postgres-cluster.js';
import { type Behaviour, receiverPool } from '../support/receiver.js';
import { openTestApp, type TestApp, validSubject } from '../support/test-app.js';

/** Short retries so the whole schedule runs in a test; the production default is 5s, 5m, 30m, 2h, 5h, 10h, 10h. */
const FAST = { NATURE_WEBHOOK_RETRY_SCHEDULE: '50ms,50ms,50ms', NATURE_WEBHOOK_TIMEOUT_MS: '500' };

const buses: [string, 'embedded' | 'nats' | 'postgres'][] = [
  ['the embedded bus', 'embedded'],
  ['NATS JetStream (a real nats-server)', 'nats'],
  ['the embedded bus on PostgreSQL (a real cluster, the log and read models there too)', 'postgres'],
];
const cluster = sharedPostgres();
afterAll(() => cluster.stopShared());

describe.each(buses)('webhook delivery on %s', (_name, bus) => {
  let server: NatsServer | undefined;
  let t: TestApp;
  let api: ReturnType<typeof client>;
  const receivers = receiverPool();
  const receiver = (behaviour?: Behaviour) => receivers.start(behaviour);
  const skip = (bus === 'nats' && natsServerPath === undefined) || (bus === 'postgres' && postgresBinDir === undefined);
  beforeAll(async () => {
    if (skip) return;
    server = bus === 'nats' ? await startNatsServer() : undefined;
    const onPostgres = bus === 'postgres' && {
      NATURE_EVENT_STORE: 'postgres',
      NATURE_READ_MODELS: 'postgres',
      POSTGRES_URL: await cluster.database(),
    };
    t = await openTestApp({ ...FAST, ...(server && { NATURE_BUS: 'nats', NATS_URL: server.url }), ...onPostgres });
    api = client(t, (await t.mint('test', 'sk')).raw);
  });
  afterEach(async () => {
    await receivers.closeAll();
  });
  afterAll(async () => {
    if (skip) return;
    await t.close();
    await server?.stop();
  });

  it.skipIf(skip)('delivers a verified nature.assessment.completed whose profile_id fetches the profile', async () => {
    const r = await receiver();
    const endpoint = await api.register(r.url);
    r.useSecret(endpoint.secret);
    const { subjectId, assessmentId } = await api.completeAssessment();

    const [delivery] = await r.waitFor(1);
    expect(delivery!.verified).toMatchObject({ ok: true });
    const event = JSON.parse(delivery!.body);
    expect(event).toEqual({
      id: expect.stringMatching(/^evt_[0-9A-Z]{26}$/),
      object: 'event',
      type: 'nature.assessment.completed',
      created_at: expect.any(String),
      livemode: false,
      data: { profile_id: expect.stringMatching(/^prf_/), assessment_id: assessmentId, subject_id: subjectId },
    });
    expect(delivery!.headers['webhook-id']).toBe(event.id);
    expect(Math.abs(Number(delivery!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(300);
    const profile = await api.call('GET', `/v1/nature/profiles/${event.data.profile_id}`);
    expect(profile.status).toBe(200);
    expect(profile.body).toMatchObject({ id: event.data.profile_id, subject_id: subjectId });
    expect((await api.call('GET', `/v1/nature/events/${event.id}`)).body).toEqual(event);
    expect((await api.call('GET', '/v1/nature/events')).body.data).toContainEqual(event);
    const attempts = await api.attemptsWhen(endpoint.id, (list) => list.length === 1);
    expect(attempts[0]).toMatchObject({
      object: 'webhook_delivery',
      event_id: event.id,
      attempt: 1,
      outcome: 'succeeded',
      status_code: 200,
      error: null,
      // The receiver is on loopback: what the server's own machine answers is never shown.
      response_excerpt: null,
      next_attempt_at: null,
      // What was sent is shown, wherever it went: the headers this service set and the body as signed.
      request: {
        headers: {
          'content-type': 'application/json',
          'user-agent': 'NatureProfileAPI-Webhooks/1',
          'webhook-id': event.id,
          'webhook-timestamp': delivery!.headers['webhook-timestamp'],
          'webhook-signature': delivery!.headers['webhook-signature'],
        },
        body: delivery!.body,
      },
    });
    expect(JSON.stringify(attempts[0])).not.toContain(endpoint.secret.slice('whsec_'.length));
  });

  it.skipIf(skip)('retries a receiver that fails 3 times, then gets exactly one success, all with one webhook-id', async () => {
    const r = await receiver((n) => (n <= 3 ? [500, 503, 429][n - 1]! : 200));
    const endpoint = await api.register(r.url);
    r.useSecret(endpoint.secret);
    await api.completeAssessment();
    const received = await r.waitFor(4);
    expect(received.every((d) => d.verified.ok)).toBe(true);
    expect(new Set(received.map((d) => d.headers['webhook-id'])).size).toBe(1);
    const attempts = await api.attemptsWhen(endpoint.id, (list) => list.length === 4);
    expect(attempts.map((a) => [a.attempt, a.outcome, a.status_code])).toEqual([
      [4, 'succeeded', 200],
      [3, 'retrying', 429],
      [2, 'retrying', 503],
      [1, 'retrying', 500],
    ]);
    expect(attempts.filter((a) => a.outcome === 'retrying').every((a) => typeof a.next_attempt_at === 'string')).toBe(true);
    // Nothing more arrives: the success ended it.
    await api.completeAssessment();
    await r.waitFor(5);
    expect(r.received).toHaveLength(5);
  });
});

describe('webhook endpoints and delivery rules (embedded bus)', () => {
  let t: TestApp;
  let api: ReturnType<typeof client>;
  let live: ReturnType<typeof client>;
  const receivers = receiverPool();
  const receiver = (behaviour?: Behaviour) => receivers.start(behaviour);
  beforeAll(async () => {
    t = await openTestApp(FAST);
    api = client(t, (await t.mint('test', 'sk')).raw);
    live = client(t, (await t.mint('live', 'sk')).raw);
  });
  afterEach(async () => {
    await receivers.closeAll();
    // Each test starts without endpoints.
    await api.deleteEndpoints();
    await live.deleteEndpoints();
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates an endpoint with a secret shown once, reads, lists and deletes it', async () => {
    const created = await api.register('http://127.0.0.1:9/hooks');
    expect(created).toEqual({
      id: expect.stringMatching(/^whe_/),
      object: 'webhook_endpoint',
      url: 'http://127.0.0.1:9/hooks',
      enabled_events: ['nature.assessment.completed'],
      description: 'test receiver',
      status: 'enabled',
      disabled_reason: null,
      previous_secret_expires_at: null,
      livemode: false,
      created_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const { secret: _secret, ...shown } = created;
    expect((await api.call('GET', `/v1/nature/webhook_endpoints/${created.id}`)).body).toEqual(shown);
    expect((await api.call('GET', '/v1/nature/webhook_endpoints')).body.data).toEqual([shown]);
    expect(JSON.stringify((await api.call('GET', '/v1/nature/webhook_endpoints')).body)).not.toContain('whsec_');
    expect((await api.call('DELETE', `/v1/nature/webhook_endpoints/${created.id}`)).body).toEqual({
      id: created.id,
      object: 'webhook_endpoint',
      deleted: true,
    });
    expect((await api.call('GET', `/v1/nature/webhook_endpoints/${created.id}`)).status).toBe(404);
    expect((await api.call('DELETE', `/v1/nature/webhook_endpoints/${created.id}`)).status).toBe(404);
    expect(t.logs.join('')).not.toContain(created.secret);
  });

  it.each([
    ['http:// in production', 'http://hooks.example.com/x'],
    ['a loopback address', 'https://127.0.0.1/x'],
    ['an IPv6 loopback', 'https://[::1]/x'],
    ['a private address', 'https://10.1.2.3/x'],
    ['a private 192.168 address', 'https://192.168.0.10/x'],
    ['the cloud metadata address', 'https://169.254.169.254/latest/meta-data'],
    ['a CGNAT address', 'https://100.64.0.1/x'],
    ['an IPv4-mapped private address', 'https://[::ffff:10.0.0.1]/x'],
    ['an IPv4-mapped loopback', 'https://[::ffff:127.0.0.1]/x'],
    ['an IPv4-compatible loopback', 'https://[::127.0.0.1]/x'],
    ['a NAT64 private address', 'https://[64:ff9b::10.0.0.1]/x'],
    ['a 6to4 loopback', 'https://[2002:7f00:1::]/x'],
    ['a Teredo address', 'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x'],
    ['localhost', 'https://localhost/x'],
    ['localhost with its final dot', 'https://localhost./x'],
    ['a single-label name', 'https://metadata/x'],
    ['a single-label name with its final dot', 'https://metadata./x'],
    ['credentials in the URL', 'https://user:pass@hooks.example.com/x'],
    ['an empty userinfo', 'https://@hooks.example.com/x'],
    ['an empty host', 'https:///hooks.example.com/x'],
    ['a leading space', ' https://hooks.example.com/x'],
    ['a trailing space', 'https://hooks.example.com/x '],
    ['another scheme', 'ftp://hooks.example.com/x'],
    ['not a URL', 'hooks.example.com'],
  ])('refuses a production endpoint with %s (422)', async (_case, url) => {
    const response = await live.call('POST', '/v1/nature/webhook_endpoints', { url });
    expect(response.status).toBe(422);
    expect(response.body.errors).toContainEqual(expect.objectContaining({ path: '/url', in: 'body' }));
    expect((await live.call('GET', '/v1/nature/webhook_endpoints')).body.data).toEqual([]);
  });

  it.each([
    ['a private address', 'http://10.0.0.1:9200/x'],
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data'],
    ['a private IPv6 address', 'http://[fd00::1]/x'],
  ])('refuses a sandbox endpoint on %s (422)', async (_case, url) => {
    const response = await api.call('POST', '/v1/nature/webhook_endpoints', { url });
    expect(response.status).toBe(422);
    expect(response.body.errors).toContainEqual(expect.objectContaining({ path: '/url', message: expect.stringMatching(/loopback/) }));
  });

  it.each([
    ['an empty host, which a URL parser would read as the host "h"', 'http:///h'],
    ['a trailing space', 'http://127.0.0.1:3000/x '],
    ['an IPv4-compatible loopback', 'http://[::127.0.0.1]:3000/x'],
  ])('refuses a sandbox endpoint with %s (422)', async (_case, url) => {
    const response = await api.call('POST', '/v1/nature/webhook_endpoints', { url });
    expect(response.status).toBe(422);
    expect(response.body).toMatchObject({ code: 'validation_failed', errors: [expect.objectContaining({ path: '/url', in: 'body' })] });
  });

  it('accepts a production endpoint with https and a public name, and a sandbox one on loopback http', async () => {
    expect((await live.call('POST', '/v1/nature/webhook_endpoints', { url: 'https://hooks.example.com/nature' })).status).toBe(201);
    expect((await live.call('POST', '/v1/nature/webhook_endpoints', { url: 'https://hooks.example.com./nature' })).status).toBe(201);
    expect((await api.call('POST', '/v1/nature/webhook_endpoints', { url: 'http://localhost:3000/hooks' })).status).toBe(201);
    expect((await api.call('POST', '/v1/nature/webhook_endpoints', { url: 'http://localhost.:3000/hooks' })).status).toBe(201);
  });

  it('listens to each event type once, however often it is listed', async () => {
    const created = await api.register('http://127.0.0.1:9/x', [
      'nature.profile.updated',
      'nature.assessment.completed',
      'nature.profile.updated',
    ]);
    expect(created.enabled_events).toEqual(['nature.profile.updated', 'nature.assessment.completed']);
    expect((await api.call('GET', `/v1/nature/webhook_endpoints/${created.id}`)).body.enabled_events).toEqual([
      'nature.profile.updated',
      'nature.assessment.completed',
    ]);
  });

  it.each([
    ['an unknown event type', { url: 'http://127.0.0.1:9/x', enabled_events: ['nature.profile.deleted'] }, '/enabled_events/0'],
    [
      'an unknown event type beside a known one',
      { url: 'http://127.0.0.1:9/x', enabled_events: ['nature.assessment.completed', 'nature.assessment.completed '] },
      '/enabled_events/1',
    ],
    ['event types that are not a list', { url: 'http://127.0.0.1:9/x', enabled_events: 'nature.assessment.completed' }, '/enabled_events'],
    ['no event types', { url: 'http://127.0.0.1:9/x', enabled_events: [] }, '/enabled_events'],
    ['an unknown field', { url: 'http://127.0.0.1:9/x', secret: 'mine' }, '/secret'],
    ['a missing url', {}, '/url'],
  ])('answers 422 to %s', async (_case, payload, path) => {
    const response = await api.call('POST', '/v1/nature/webhook_endpoints', payload);
    expect(response.status).toBe(422);
    expect(response.body.errors.map((e: Body) => e.path)).toContain(path);
  });

  it('sends sandbox events to sandbox endpoints only, and production events to production endpoints only', async () => {
    const sandbox = await receiver();
    const sandboxEndpoint = await api.register(sandbox.url);
    sandbox.useSecret(sandboxEndpoint.secret);
    const production = (await live.call('POST', '/v1/nature/webhook_endpoints', { url: 'https://hooks.example.com/nature' })).body;

    await api.completeAssessment();
    const [sandboxDelivery] = await sandbox.waitFor(1);
    expect(JSON.parse(sandboxDelivery!.body).livemode).toBe(false);

    await live.completeAssessment();
    const attempt = await eventually(async () => (await live.deliveries(production.id))[0]);
    // The production endpoint was tried (its name does not resolve here) and the sandbox receiver got nothing more.
    expect(attempt).toMatchObject({ attempt: 1, outcome: 'retrying', status_code: null, livemode: true });
    expect(attempt.error).toEqual(expect.any(String));
    expect(sandbox.received).toHaveLength(1);
    expect(await api.deliveries(sandboxEndpoint.id)).toHaveLength(1);
    expect((await api.call('GET', `/v1/nature/webhook_endpoints/${production.id}`)).status).toBe(404);
  });

  it('gives up after the schedule: every attempt recorded, the last failed, the message dead-lettered, the endpoint disabled', async () => {
    const r = await receiver(() => 500);
    const endpoint = await api.register(r.url);
    await api.completeAssessment();
    await r.waitFor(4);
    const attempts = await api.attemptsWhen(endpoint.id, (list) => list[0]?.outcome === 'failed');
    expect(attempts.map((a) => a.outcome)).toEqual(['failed', 'retrying', 'retrying', 'retrying']);
    expect(attempts[0]!.next_attempt_at).toBeNull();
    // The dead letter and the disabling follow the recorded attempt (the disabling as its own event, projected apart): wait for them.
    await expect
      .poll(() => t.envs.test.bus.deadLetters('deliveries'))
      .toContainEqual(expect.objectContaining({ reason: 'no 2xx after 4 attempts' }));
    await expect
      .poll(async () => (await api.call('GET', `/v1/nature/webhook_endpoints/${endpoint.id}`)).body)
      .toMatchObject({ status: 'disabled', disabled_reason: 'A delivery got no 2xx in 4 attempts: its retries are exhausted.' });
  });

  it('treats a redirect as a failure and never follows it', async () => {
    const target = await receiver();
    const r = await receiver((n) => (n === 1 ? 302 : 200));
    const endpoint = await api.register(r.url);
    await api.completeAssessment();
    await r.waitFor(2);
    const attempts = await api.attemptsWhen(endpoint.id, (list) => list.length === 2);
    expect(attempts.map((a) => [a.outcome, a.status_code])).toEqual([
      ['succeeded', 200],
      ['retrying', 302],
    ]);
    expect(target.received).toHaveLength(0);
  });

  it('records a receiver that does not answer in time as a timeout, and retries', async () => {
    const r = await receiver((n) => (n === 1 ? 'hang' : 200));
    const endpoint = await api.register(r.url);
    await api.completeAssessment();
    await r.waitFor(2);
    const attempts = await api.attemptsWhen(endpoint.id, (list) => list.length === 2);
    expect(attempts[1]).toMatchObject({ outcome: 'retrying', status_code: null, error: 'timeout after 500 ms' });
    expect(attempts[1]!.duration_ms).toBeGreaterThanOrEqual(500);
    expect(attempts[0]).toMatchObject({ outcome: 'succeeded' });
  });

  it('disables an endpoint that answers 410 Gone and delivers nothing more to it', async () => {
    const r = await receiver(() => 410);
    const endpoint = await api.register(r.url);
    await api.completeAssessment();
    await r.waitFor(1);
    const disabled = await eventually(async () => {
      const body = (await api.call('GET', `/v1/nature/webhook_endpoints/${endpoint.id}`)).body;
      return body.status === 'disabled' ? body : undefined;
    });
    expect(disabled.disabled_reason).toMatch(/410/);
    expect((await api.deliveries(endpoint.id)).map((a) => a.outcome)).toEqual(['endpoint_gone']);
    const eventId = r.received[0]!.headers['webhook-id'];
    const redeliver = await api.call('POST', `/v1/nature/events/${eventId}/redeliver`, { endpoint_id: endpoint.id });
    expect(redeliver.status).toBe(422);
    expect(redeliver.body).toMatchObject({
      code: 'validation_failed',
      errors: [expect.objectContaining({ path: '/endpoint_id', message: expect.stringMatching(/disabled/) })],
    });
    const other = await receiver();
    await api.register(other.url);
    await api.completeAssessment();
    await other.waitFor(1);
    expect(r.received).toHaveLength(1);
  });

  it('redelivers an event on request with the same webhook-id; an unknown event is 404', async () => {
    const r = await receiver();
    const endpoint = await api.register(r.url);
    r.useSecret(endpoint.secret);
    await api.completeAssessment();
    const [first] = await r.waitFor(1);
    const eventId = first!.headers['webhook-id'] as string;
    const again = await api.call('POST', `/v1/nature/events/${eventId}/redeliver`);
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ id: eventId, object: 'event' });
    const [, second] = await r.waitFor(2);
    expect(second!.headers['webhook-id']).toBe(eventId);
    expect(second!.verified.ok).toBe(true);
    expect(second!.body).toBe(first!.body);
    // An empty object names no endpoint: the same as no body.
    expect((await api.call('POST', `/v1/nature/events/${eventId}/redeliver`, {})).status).toBe(202);
    const [, , third] = await r.waitFor(3);
    expect(third!.headers['webhook-id']).toBe(eventId);
    expect((await api.call('POST', '/v1/nature/events/evt_01M00000000000000000000000/redeliver')).status).toBe(404);
    expect((await api.call('GET', '/v1/nature/events/evt_01M00000000000000000000000')).body.code).toBe('not_found');
  });

  it('redelivers to the one endpoint the body names, even one registered after the event', async () => {
    const first = await receiver();
    const second = await receiver();
    const firstEndpoint = await api.register(first.url);
    const secondEndpoint = await api.register(second.url);
    await api.completeAssessment();
    const eventId = (await first.waitFor(1))[0]!.headers['webhook-id'] as string;
    await second.waitFor(1);

    const again = await api.call('POST', `/v1/nature/events/${eventId}/redeliver`, { endpoint_id: secondEndpoint.id });
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ id: eventId, object: 'event' });
    expect((await second.waitFor(2))[1]!.headers['webhook-id']).toBe(eventId);

    const later = await receiver();
    const laterEndpoint = await api.register(later.url);
    expect((await api.call('POST', `/v1/nature/events/${eventId}/redeliver`, { endpoint_id: laterEndpoint.id })).status).toBe(202);
    expect((await later.waitFor(1))[0]!.headers['webhook-id']).toBe(eventId);

    // A new event for every endpoint: the first endpoint got the old one once, then only the new one.
    await api.completeAssessment();
    await first.waitFor(2);
    expect(first.received.filter((d) => d.headers['webhook-id'] === eventId)).toHaveLength(1);
    expect((await api.deliveries(firstEndpoint.id)).filter((a) => a.event_id === eventId)).toHaveLength(1);
  });

  it.each([
    ['an unknown field', { endpoint: 'whe_x' }, '/endpoint'],
    ['an endpoint id that is not a string', { endpoint_id: 5 }, '/endpoint_id'],
    ['a body that is not an object', ['whe_x'], ''],
  ])('answers 422 to a redelivery with %s', async (_case, payload, path) => {
    const r = await receiver();
    await api.register(r.url);
    await api.completeAssessment();
    const eventId = (await r.waitFor(1))[0]!.headers['webhook-id'];
    const response = await api.call('POST', `/v1/nature/events/${eventId}/redeliver`, payload);
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('validation_failed');
    expect(response.body.errors.map((e: Body) => e.path)).toContain(path);
  });

  it("refuses a redelivery to an endpoint that does not listen to the event's type (422), or is not in this environment (404)", async () => {
    const r = await receiver();
    await api.register(r.url);
    const updatesOnly = await api.register('http://127.0.0.1:9/updates', ['nature.profile.updated']);
    const production = (await live.call('POST', '/v1/nature/webhook_endpoints', { url: 'https://hooks.example.com/x' })).body;
    await api.completeAssessment();
    const eventId = (await r.waitFor(1))[0]!.headers['webhook-id'];
    const redeliver = (endpoint_id: string) => api.call('POST', `/v1/nature/events/${eventId}/redeliver`, { endpoint_id });

    const unsubscribed = await redeliver(updatesOnly.id);
    expect(unsubscribed.status).toBe(422);
    expect(unsubscribed.body).toMatchObject({
      code: 'validation_failed',
      errors: [expect.objectContaining({ path: '/endpoint_id', in: 'body' })],
    });
    expect(unsubscribed.body.errors[0].message).toMatch(/nature\.assessment\.completed/);
    for (const id of [production.id, 'whe_01M00000000000000000000000']) {
      const missing = await redeliver(id);
      expect(missing.status).toBe(404);
      expect(missing.body.code).toBe('not_found');
    }
  });

  it("answers 404 for the deliveries of an unknown endpoint, and for another environment's endpoint", async () => {
    const production = (await live.call('POST', '/v1/nature/webhook_endpoints', { url: 'https://hooks.example.com/x' })).body;
    expect((await api.call('GET', `/v1/nature/webhook_endpoints/${production.id}/deliveries`)).status).toBe(404);
    expect((await api.call('GET', '/v1/nature/webhook_endpoints/whe_01M00000000000000000000000/deliveries')).status).toBe(404);
  });
});

describe('a server whose operator keeps webhooks off loopback (NATURE_WEBHOOK_ALLOW_PRIVATE=never)', () => {
  let t: TestApp;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    t = await openTestApp({ ...FAST, NATURE_WEBHOOK_ALLOW_PRIVATE: 'never' });
    api = client(t, (await t.mint('test', 'sk')).raw);
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([
    ['a loopback address', 'http://127.0.0.1:3000/hooks'],
    ['an IPv6 loopback', 'http://[::1]:3000/hooks'],
    ['localhost', 'http://localhost:3000/hooks'],
    ['a single-label name', 'http://metadata/hooks'],
  ])('refuses a sandbox endpoint on %s (422), at creation and as a new URL', async (_case, url) => {
    const refusal = {
      code: 'validation_failed',
      errors: [{ path: '/url', in: 'body', message: expect.stringMatching(/public address.*loopback/) }],
    };
    const created = await api.call('POST', '/v1/nature/webhook_endpoints', { url });
    expect(created.status).toBe(422);
    expect(created.body).toMatchObject(refusal);
    const endpoint = await api.register('https://hooks.example.com/nature');
    const changed = await api.call('PATCH', `/v1/nature/webhook_endpoints/${endpoint.id}`, { url });
    expect(changed.status).toBe(422);
    expect(changed.body).toMatchObject(refusal);
    expect((await api.call('GET', '/v1/nature/webhook_endpoints')).body.data).toEqual([
      expect.objectContaining({ id: endpoint.id, url: 'https://hooks.example.com/nature' }),
    ]);
    await api.deleteEndpoints();
  });
});

describe('a bus outage', () => {
  it('delays webhooks but neither the read models nor scoring', async () => {
    const t = await openTestApp(FAST);
    const api = client(t, (await t.mint('test', 'sk')).raw);
    // The bus is gone: every publish now fails.
    await t.envs.test.bus.close();
    const { subjectId } = await api.completeAssessment();
    expect((await api.call('GET', `/v1/nature/subjects/${subjectId}`)).status).toBe(200);
    const profile = await eventually(async () => {
      const response = await api.call('GET', `/v1/nature/subjects/${subjectId}/profile`);
      return response.status === 200 ? response.body : undefined;
    });
    expect(profile.subject_id).toBe(subjectId);
    // Writes after the failed publish are still read back at once.
    const later = await api.call('POST', '/v1/nature/subjects', validSubject());
    expect((await api.call('GET', `/v1/nature/subjects/${later.body.id}`)).status).toBe(200);
    await t.app.close();
  });
});

describe('an endpoint registered while delivery lags', () => {
  it('receives only the events that happen after its registration', async () => {
    const t = await openTestApp(FAST);
    const receivers = receiverPool();
    try {
      const api = client(t, (await t.mint('test', 'sk')).raw);
      const events = async (count: number) =>
        eventually(async () => {
          const data = (await api.call('GET', '/v1/nature/events')).body.data as Body[];
          const completions = data.filter((e) => e.type === 'nature.assessment.completed');
          return completions.length === count ? completions.map((e) => e.id as string).reverse() : undefined;
        });
      // Delivery lags behind the log: the dispatcher is stopped while all this happens.
      await t.envs.test.dispatcher.stop();
      const early = await receivers.start();
      const earlyEndpoint = await api.register(early.url);
      await api.completeAssessment();
      const [first] = await events(1);
      // Registered after the first completion is in the log, before any delivery of it.
      const late = await receivers.start();
      const lateEndpoint = await api.register(late.url);
      await api.completeAssessment();
      const [, second] = await events(2);

      // Delivery resumes; what the fan-out queues for each endpoint is recorded: the event itself, for each.
      const queued: { event: { id: string }; endpoint_id: string }[] = [];
      const bus = t.envs.test.bus;
      const recording: Bus = {
        async publish(topic, id, payload) {
          if (topic === 'deliveries') queued.push(payload as (typeof queued)[number]);
          await bus.publish(topic, id, payload);
        },
        consume: (topic, handler, options) => bus.consume(topic, handler, options),
        deadLetters: (topic) => bus.deadLetters(topic),
        ping: () => bus.ping(),
        close: () => bus.close(),
      };
      const { events: log, readModels, endpointRules, projector } = t.envs.test;
      const readModelsAt = (position: bigint) => projector.waitFor(position, 2000);
      const dispatcher = new WebhookDispatcher(
        { events: log, readModels, bus: recording, endpointRules, readModelsAt, guard: async () => undefined },
        { retryScheduleMs: [50], timeoutMs: 500 },
        pino({ level: 'silent' }),
      );
      dispatcher.start();
      await early.waitFor(2);
      await late.waitFor(1);
      // Both fan-outs have run (the early endpoint got both events) and stopping waits for any under way.
      await dispatcher.stop();

      const ids = (endpointId: string) =>
        queued
          .filter((d) => d.endpoint_id === endpointId)
          .map((d) => d.event.id)
          .sort();
      expect(ids(earlyEndpoint.id)).toEqual([first, second].sort());
      expect(ids(lateEndpoint.id)).toEqual([second]);
      expect(late.received.map((d) => d.headers['webhook-id'])).toEqual([second]);
    } finally {
      await receivers.closeAll();
      await t.close();
    }
  });
});

describe.each(buses)('a redelivery on %s', (_name, bus) => {
  const skip = (bus === 'nats' && natsServerPath === undefined) || (bus === 'postgres' && postgresBinDir === undefined);
  it.skipIf(skip)(
    'supersedes the retry scheduled of the same event to the endpoint: it arrives twice in all, never a third time',
    async () => {
      const server = bus === 'nats' ? await startNatsServer() : undefined;
      const onPostgres = bus === 'postgres' && {
        NATURE_EVENT_STORE: 'postgres',
        NATURE_READ_MODELS: 'postgres',
        // A database of its own: the shared one holds the other suite's data keys, under another master key.
        POSTGRES_URL: await (await cluster.cluster()).createDatabase(),
      };
      const t = await openTestApp({ ...FAST, ...(server && { NATURE_BUS: 'nats', NATS_URL: server.url }), ...onPostgres });
      const receivers = receiverPool();
      let dispatcher: WebhookDispatcher | undefined;
      try {
        const api = client(t, (await t.mint('test', 'sk')).raw);
        const r = await receivers.start((n) => (n === 1 ? 500 : 200));
        const endpoint = await api.register(r.url);
        r.useSecret(endpoint.secret);
        await api.completeAssessment();
        const failed = (await api.attemptsWhen(endpoint.id, (list) => list.length === 1))[0]!;
        // The server stops delivering (a restart): the retry falls due while no dispatcher runs, so the redelivery is
        // asked for before it, whatever the machine's speed.
        await t.envs.test.dispatcher.stop();
        expect((await api.call('POST', `/v1/nature/events/${failed.event_id}/redeliver`, { endpoint_id: endpoint.id })).status).toBe(202);

        // Delivery resumes; what becomes of each delivery message is recorded.
        const handled: { id: string; outcome: string }[] = [];
        const { events: log, readModels, endpointRules, projector, bus: messages } = t.envs.test;
        const recording: Bus = Object.assign(Object.create(messages) as Bus, {
          consume: (topic: Topic, handler: Handler, options: Parameters<Bus['consume']>[2]) =>
            messages.consume(
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
          {
            events: log,
            readModels,
            bus: recording,
            endpointRules,
            readModelsAt: (at) => projector.waitFor(at, 2000),
            guard: async () => {},
          },
          { retryScheduleMs: [50, 50, 50], timeoutMs: 500 },
          pino({ level: 'silent' }),
        );
        dispatcher.start();
        // Both have been handled: the redelivery (answered 200) and the old retry, past its due time (acked unsent).
        const attempts = await api.attemptsWhen(endpoint.id, (list) => list.length === 2);
        await eventually(async () => {
          const acked = handled.filter((h) => h.outcome === 'ack').map((h) => h.id.includes(':redeliver:'));
          return acked.includes(true) && acked.includes(false) ? true : undefined;
        });
        expect(r.received).toHaveLength(2);
        expect(r.received.every((d) => d.verified.ok && d.headers['webhook-id'] === failed.event_id)).toBe(true);
        expect(attempts.map((a) => [a.attempt, a.outcome, a.status_code])).toEqual([
          [1, 'succeeded', 200],
          [1, 'retrying', 500],
        ]);
      } finally {
        await dispatcher?.stop();
        await receivers.closeAll();
        await t.close();
        await server?.stop();
      }
    },
  );
});
