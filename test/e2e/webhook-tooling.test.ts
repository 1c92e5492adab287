import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { endpointStream } from '../../src/domain/webhook-endpoint.js';
import { type Body, client } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { expectProblem } from '../support/problems.js';
import { type Behaviour, type Received, receiverPool } from '../support/receiver.js';
import { auth, openTestApp, type TestApp } from '../support/test-app.js';

/** Short retries so a schedule is exhausted within a test. */
const FAST = { NATURE_WEBHOOK_RETRY_SCHEDULE: '50ms,50ms,50ms', NATURE_WEBHOOK_TIMEOUT_MS: '500' };

/** What a receiver holding only `secret` makes of a delivery: the standardwebhooks library's verdict. */
function verifiesWith(secret: string, delivery: Received): boolean {
  try {
    new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>);
    return true;
  } catch {
    return false;
  }
}

describe('webhook tooling', () => {
  let t: TestApp;
  let api: ReturnType<typeof client>;
  let live: ReturnType<typeof client>;
  let sandboxKey: string;
  let liveKey: string;
  const receivers = receiverPool();
  const receiver = (behaviour?: Behaviour) => receivers.start(behaviour);
  const endpointEvents = async (id: string) => (await t.envs.test.events.readStream(endpointStream(id))).events.map((e) => e.type);
  const endpoint = (id: string) => api.call('GET', `/v1/nature/webhook_endpoints/${id}`).then((r) => r.body);
  const statusOf = (id: string, status: string) =>
    eventually(async () => {
      const body = await endpoint(id);
      return body.status === status ? body : undefined;
    });
  const warnings = () =>
    t.logs
      .join('')
      .split('\n')
      .filter((line) => line.includes('"level":40'))
      .map((line) => JSON.parse(line) as Body);

  beforeAll(async () => {
    t = await openTestApp(FAST);
    sandboxKey = (await t.mint('test', 'sk')).raw;
    liveKey = (await t.mint('live', 'sk')).raw;
    api = client(t, sandboxKey);
    live = client(t, liveKey);
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

  describe('a test event', () => {
    it('sends a signed sample nature.assessment.completed marked as a test, without answering any item', async () => {
      const r = await receiver();
      const registered = await api.register(r.url);
      r.useSecret(registered.secret);
      const sent = await api.call('POST', `/v1/nature/webhook_endpoints/${registered.id}/test`);
      expect(sent.status).toBe(202);
      expect(sent.body).toEqual({
        id: expect.stringMatching(/^evt_[0-9A-Z]{26}$/),
        object: 'event',
        type: 'nature.assessment.completed',
        created_at: expect.any(String),
        livemode: false,
        data: {
          profile_id: 'prf_0000000000000000000000TEST',
          assessment_id: 'asm_0000000000000000000000TEST',
          subject_id: 'sub_0000000000000000000000TEST',
        },
      });

      const [delivery] = await r.waitFor(1);
      expect(delivery!.verified).toEqual({ ok: true, payload: sent.body });
      expect(delivery!.headers['webhook-id']).toBe(sent.body.id);
      const [attempt] = await api.attemptsWhen(registered.id, (list) => list.length === 1);
      expect(attempt).toMatchObject({ event_id: sent.body.id, attempt: 1, outcome: 'succeeded', status_code: 200, next_attempt_at: null });
      // A sample: nothing of it exists, and no assessment was started.
      expect((await api.call('GET', `/v1/nature/events/${sent.body.id}`)).status).toBe(404);
      expect((await api.call('GET', `/v1/nature/profiles/${sent.body.data.profile_id}`)).status).toBe(404);
      expect((await api.call('GET', '/v1/nature/events?limit=100')).body.data.map((e: Body) => e.id)).not.toContain(sent.body.id);
      // Each test is a new event, so a receiver that dedupes on webhook-id still sees the second one.
      const again = await api.call('POST', `/v1/nature/webhook_endpoints/${registered.id}/test`, {});
      expect(again.status).toBe(202);
      expect((await r.waitFor(2))[1]!.headers['webhook-id']).toBe(again.body.id);
      expect(again.body.id).not.toBe(sent.body.id);
    });

    it('is sent once: a failure (410 included) is neither retried nor disables the endpoint', async () => {
      const r = await receiver(() => 410);
      const registered = await api.register(r.url);
      expect((await api.call('POST', `/v1/nature/webhook_endpoints/${registered.id}/test`)).status).toBe(202);
      await r.waitFor(1);
      const [attempt] = await api.attemptsWhen(registered.id, (list) => list.length === 1);
      expect(attempt).toMatchObject({ attempt: 1, outcome: 'failed', status_code: 410, next_attempt_at: null });
      expect(await endpoint(registered.id)).toMatchObject({ status: 'enabled', disabled_reason: null });
      // A later real event reaches a healthy endpoint; by then a retry of the test (50 ms) would have come.
      const healthy = await receiver();
      await api.register(healthy.url);
      await api.completeAssessment();
      await healthy.waitFor(1);
      await r.waitFor(2);
      expect(r.received).toHaveLength(2);
      expect(r.received[1]!.headers['webhook-id']).not.toBe(r.received[0]!.headers['webhook-id']);
      // The real event's 410, unlike the test's, retires the endpoint.
      const attempts = await api.attemptsWhen(registered.id, (list) => list.length === 2);
      expect(attempts.map((a) => a.outcome)).toEqual(['endpoint_gone', 'failed']);
    });

    it('is refused in production (403 sandbox_only), for an unknown endpoint (404) and with a body (422)', async () => {
      const production = (await live.call('POST', '/v1/nature/webhook_endpoints', { url: 'https://hooks.example.com/x' })).body;
      const refused = await t.app.inject({
        method: 'POST',
        url: `/v1/nature/webhook_endpoints/${production.id}/test`,
        headers: auth(liveKey),
      });
      expect(expectProblem(refused, 403, 'sandbox_only').detail).toMatch(/sandbox/);
      expect(await live.deliveries(production.id)).toEqual([]);
      const unknown = await t.app.inject({
        method: 'POST',
        url: '/v1/nature/webhook_endpoints/whe_01M00000000000000000000000/test',
        headers: auth(sandboxKey),
      });
      expectProblem(unknown, 404, 'not_found');
      // Another environment's endpoint does not exist here.
      expectProblem(
        await t.app.inject({ method: 'POST', url: `/v1/nature/webhook_endpoints/${production.id}/test`, headers: auth(sandboxKey) }),
        404,
        'not_found',
      );
      const r = await receiver();
      const registered = await api.register(r.url);
      const withBody = await t.app.inject({
        method: 'POST',
        url: `/v1/nature/webhook_endpoints/${registered.id}/test`,
        headers: auth(sandboxKey),
        payload: { type: 'x' },
      });
      expect(expectProblem(withBody, 422, 'validation_failed').errors).toEqual([expect.objectContaining({ path: '/type' })]);
    });
  });

  describe('updating an endpoint', () => {
    it('changes url, enabled_events and description, recorded in the log; deliveries go to the new url', async () => {
      const before = await receiver();
      const after = await receiver();
      const registered = await api.register(before.url);
      after.useSecret(registered.secret);
      const updated = await api.call('PATCH', `/v1/nature/webhook_endpoints/${registered.id}`, {
        url: after.url,
        enabled_events: ['nature.assessment.completed', 'nature.profile.updated', 'nature.profile.updated'],
        description: 'moved',
      });
      expect(updated.status).toBe(200);
      const { secret: _secret, ...shown } = registered;
      expect(updated.body).toEqual({
        ...shown,
        url: after.url,
        enabled_events: ['nature.assessment.completed', 'nature.profile.updated'],
        description: 'moved',
      });
      expect(await endpoint(registered.id)).toEqual(updated.body);
      expect(JSON.stringify(updated.body)).not.toContain('whsec_');
      expect(await endpointEvents(registered.id)).toEqual(['WebhookEndpointCreated', 'WebhookEndpointUpdated']);

      // The same values again change nothing and record nothing; null clears the description.
      const same = await api.call('PATCH', `/v1/nature/webhook_endpoints/${registered.id}`, { url: after.url, description: 'moved' });
      expect(same.body).toEqual(updated.body);
      expect(await endpointEvents(registered.id)).toHaveLength(2);
      expect((await api.call('PATCH', `/v1/nature/webhook_endpoints/${registered.id}`, { description: null })).body.description).toBeNull();

      await api.completeAssessment();
      const [delivery] = await after.waitFor(1);
      expect(delivery!.verified.ok).toBe(true);
      expect(before.received).toHaveLength(0);
    });

    it('validates as at registration: address guard, known event types, no unknown field; nothing is recorded', async () => {
      const registered = await api.register('http://127.0.0.1:9/hooks');
      const production = (await live.call('POST', '/v1/nature/webhook_endpoints', { url: 'https://hooks.example.com/x' })).body;
      const patch = (c: typeof api, id: string, payload: unknown) =>
        t.app.inject({
          method: 'PATCH',
          url: `/v1/nature/webhook_endpoints/${id}`,
          headers: auth(c === api ? sandboxKey : liveKey),
          payload: payload as object,
        });
      const cases: [typeof api, string, unknown, string][] = [
        [api, registered.id, { url: 'http://10.0.0.1/h' }, '/url'],
        [api, registered.id, { url: 'http://user@127.0.0.1/h' }, '/url'],
        [live, production.id, { url: 'http://hooks.example.com/x' }, '/url'],
        [live, production.id, { url: 'https://[::ffff:127.0.0.1]/x' }, '/url'],
        [api, registered.id, { enabled_events: [] }, '/enabled_events'],
        [api, registered.id, { enabled_events: ['nature.subject.create'] }, '/enabled_events/0'],
        [api, registered.id, { status: 'paused' }, '/status'],
        [api, registered.id, { secret: 'whsec_x' }, '/secret'],
      ];
      for (const [c, id, payload, path] of cases) {
        const body = expectProblem(await patch(c, id, payload), 422, 'validation_failed');
        expect({ payload, paths: body.errors.map((e: Body) => e.path) }).toEqual({ payload, paths: [path] });
      }
      expect(await endpointEvents(registered.id)).toEqual(['WebhookEndpointCreated']);
      expectProblem(await patch(api, 'whe_01M00000000000000000000000', { description: 'x' }), 404, 'not_found');
      expectProblem(await patch(api, production.id, { description: 'x' }), 404, 'not_found');
    });

    it('re-enables an endpoint disabled by exhausted retries, which then backfills the missed event by redelivery', async () => {
      const r = await receiver((n) => (n <= 4 ? 500 : 200));
      const registered = await api.register(r.url);
      r.useSecret(registered.secret);
      await api.completeAssessment();
      const disabled = await statusOf(registered.id, 'disabled');
      expect(disabled.disabled_reason).toMatch(/retries are exhausted/);
      expect(warnings()).toContainEqual(
        expect.objectContaining({
          endpoint_id: registered.id,
          reason: disabled.disabled_reason,
          msg: expect.stringMatching(/webhook endpoint disabled/),
        }),
      );
      const missed = r.received[0]!.headers['webhook-id'] as string;

      // Disabled: a new completion is not sent to it.
      const other = await receiver();
      await api.register(other.url);
      await api.completeAssessment();
      await other.waitFor(1);
      expect(r.received).toHaveLength(4);

      const enabled = await api.call('PATCH', `/v1/nature/webhook_endpoints/${registered.id}`, { status: 'enabled' });
      expect(enabled.status).toBe(200);
      expect(enabled.body).toMatchObject({ status: 'enabled', disabled_reason: null });
      expect(await endpointEvents(registered.id)).toEqual(['WebhookEndpointCreated', 'WebhookEndpointDisabled', 'WebhookEndpointEnabled']);

      expect((await api.call('POST', `/v1/nature/events/${missed}/redeliver`, { endpoint_id: registered.id })).status).toBe(202);
      const backfilled = (await r.waitFor(5))[4]!;
      expect(backfilled.headers['webhook-id']).toBe(missed);
      expect(backfilled.verified.ok).toBe(true);
      await api.completeAssessment();
      expect((await r.waitFor(6))[5]!.verified.ok).toBe(true);
    });

    it('re-enables an endpoint disabled by a 410, after a test event shows it is fixed; and disables one on request', async () => {
      const r = await receiver((n) => (n === 1 ? 410 : 200));
      const registered = await api.register(r.url);
      r.useSecret(registered.secret);
      await api.completeAssessment();
      expect((await statusOf(registered.id, 'disabled')).disabled_reason).toMatch(/410/);
      expect(warnings()).toContainEqual(expect.objectContaining({ endpoint_id: registered.id, reason: expect.stringMatching(/410/) }));

      // A test reaches a disabled endpoint, so the fix can be checked before deliveries resume.
      const test = await api.call('POST', `/v1/nature/webhook_endpoints/${registered.id}/test`);
      expect(test.status).toBe(202);
      expect((await r.waitFor(2))[1]!.verified).toEqual({ ok: true, payload: test.body });
      expect((await endpoint(registered.id)).status).toBe('disabled');

      expect((await api.call('PATCH', `/v1/nature/webhook_endpoints/${registered.id}`, { status: 'enabled' })).body.status).toBe('enabled');
      await api.completeAssessment();
      expect((await r.waitFor(3))[2]!.verified.ok).toBe(true);

      const off = await api.call('PATCH', `/v1/nature/webhook_endpoints/${registered.id}`, { status: 'disabled' });
      expect(off.body).toMatchObject({ status: 'disabled', disabled_reason: 'Disabled by request.' });
      const other = await receiver();
      await api.register(other.url);
      await api.completeAssessment();
      await other.waitFor(1);
      expect(r.received).toHaveLength(3);
    });
  });

  describe('rotating the secret', () => {
    it('signs with both secrets during the overlap, so a receiver holding either verifies', async () => {
      const r = await receiver();
      const registered = await api.register(r.url);
      const rotated = await api.call('POST', `/v1/nature/webhook_endpoints/${registered.id}/rotate_secret`, { expire_previous_in: 3600 });
      expect(rotated.status).toBe(200);
      const { secret, previous_secret_expires_at, ...rest } = rotated.body;
      expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(secret).not.toBe(registered.secret);
      expect(Date.parse(previous_secret_expires_at) - Date.now()).toBeGreaterThan(3500_000);
      expect(rest).toMatchObject({ id: registered.id, object: 'webhook_endpoint', status: 'enabled' });
      // The new secret is shown once: reads show only when the overlap ends.
      const read = await endpoint(registered.id);
      expect(read.previous_secret_expires_at).toBe(previous_secret_expires_at);
      expect(JSON.stringify(read)).not.toContain('whsec_');
      expect(await endpointEvents(registered.id)).toEqual(['WebhookEndpointCreated', 'WebhookEndpointSecretRotated']);

      await api.completeAssessment();
      const test = await api.call('POST', `/v1/nature/webhook_endpoints/${registered.id}/test`);
      const received = await r.waitFor(2);
      expect(received.map((d) => d.headers['webhook-id'])).toContain(test.body.id);
      for (const delivery of received) {
        expect((delivery.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
        expect(verifiesWith(registered.secret, delivery)).toBe(true);
        expect(verifiesWith(secret, delivery)).toBe(true);
      }
      expect(t.logs.join('')).not.toContain(registered.secret.slice('whsec_'.length));
      expect(t.logs.join('')).not.toContain(secret.slice('whsec_'.length));
    });

    it('signs with the new secret only once the overlap is over (or with none: expire_previous_in 0)', async () => {
      for (const overlap of [1, 0]) {
        const r = await receiver();
        const registered = await api.register(r.url);
        const rotated = (
          await api.call('POST', `/v1/nature/webhook_endpoints/${registered.id}/rotate_secret`, { expire_previous_in: overlap })
        ).body;
        // The endpoint says when the previous secret stops signing: wait for that, then send.
        await eventually(async () => ((await endpoint(registered.id)).previous_secret_expires_at === null ? true : undefined));
        await api.call('POST', `/v1/nature/webhook_endpoints/${registered.id}/test`);
        const [delivery] = await r.waitFor(1);
        expect((delivery!.headers['webhook-signature'] as string).split(' ')).toHaveLength(1);
        expect(verifiesWith(rotated.secret, delivery!)).toBe(true);
        expect(verifiesWith(registered.secret, delivery!)).toBe(false);
      }
    });

    it('retires every earlier secret on each rotation: at most one previous secret signs, for its own overlap', async () => {
      const signaturesOf = async (r: Awaited<ReturnType<typeof receiver>>, id: string, count: number) => {
        await api.call('POST', `/v1/nature/webhook_endpoints/${id}/test`);
        return (await r.waitFor(count)).at(-1)!;
      };
      const r = await receiver();
      const registered = await api.register(r.url);
      const second = (await api.call('POST', `/v1/nature/webhook_endpoints/${registered.id}/rotate_secret`, { expire_previous_in: 3600 }))
        .body;
      const third = (await api.call('POST', `/v1/nature/webhook_endpoints/${registered.id}/rotate_secret`, { expire_previous_in: 3600 }))
        .body;
      // The first secret was still in its hour when the second rotation came: it stops now; the second signs for its hour.
      expect((await endpoint(registered.id)).previous_secret_expires_at).toBe(third.previous_secret_expires_at);
      const during = await signaturesOf(r, registered.id, 1);
      expect((during.headers['webhook-signature'] as string).split(' ')).toHaveLength(2);
      expect([registered.secret, second.secret, third.secret].map((secret) => verifiesWith(secret, during))).toEqual([false, true, true]);
      // With 0, every earlier secret ends at once, the one still in its overlap included.
      const fourth = (await api.call('POST', `/v1/nature/webhook_endpoints/${registered.id}/rotate_secret`, { expire_previous_in: 0 }))
        .body;
      expect(fourth.previous_secret_expires_at).toBe(null);
      expect((await endpoint(registered.id)).previous_secret_expires_at).toBe(null);
      const after = await signaturesOf(r, registered.id, 2);
      expect((after.headers['webhook-signature'] as string).split(' ')).toHaveLength(1);
      expect([second.secret, third.secret, fourth.secret].map((secret) => verifiesWith(secret, after))).toEqual([false, false, true]);
    });

    it('defaults to a 24-hour overlap, answers 404 for an unknown endpoint and 422 for a bad overlap', async () => {
      const registered = await api.register('http://127.0.0.1:9/hooks');
      const rotated = await api.call('POST', `/v1/nature/webhook_endpoints/${registered.id}/rotate_secret`);
      expect(Math.round((Date.parse(rotated.body.previous_secret_expires_at) - Date.now()) / 3600_000)).toBe(24);
      const rotate = (id: string, payload?: unknown) =>
        t.app.inject({
          method: 'POST',
          url: `/v1/nature/webhook_endpoints/${id}/rotate_secret`,
          headers: auth(sandboxKey),
          ...(payload !== undefined && { payload: payload as object }),
        });
      for (const payload of [
        { expire_previous_in: -1 },
        { expire_previous_in: 7 * 24 * 3600 + 1 },
        { expire_previous_in: 1.5 },
        { expire_previous_in: '60' },
        { overlap: 60 },
      ]) {
        expectProblem(await rotate(registered.id, payload), 422, 'validation_failed');
      }
      expectProblem(await rotate('whe_01M00000000000000000000000'), 404, 'not_found');
      expect(await endpointEvents(registered.id)).toEqual(['WebhookEndpointCreated', 'WebhookEndpointSecretRotated']);
    });
  });
});
