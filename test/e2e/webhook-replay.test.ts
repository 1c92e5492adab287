import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Body, client } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { startReceiver } from '../support/receiver.js';
import { openTestApp, type TestApp } from '../support/test-app.js';

describe('replaying the failed deliveries of an endpoint', () => {
  let t: TestApp;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    t = await openTestApp({ NATURE_WEBHOOK_RETRY_SCHEDULE: '50ms' });
    api = client(t, (await t.mint('test', 'sk')).raw);
  });
  afterAll(() => t.close());

  it('queues again each event whose latest attempt failed since a time, once it is enabled, and nothing delivered since', async () => {
    let healthy = false;
    const receiver = await startReceiver(() => (healthy ? 200 : 500));
    const endpoint = await api.register(receiver.url);
    receiver.useSecret(endpoint.secret);
    const since = new Date(Date.now() - 1000).toISOString();
    await api.completeAssessment();
    await api.completeAssessment();
    // Both fail until their retries run out.
    const failed = await api.attemptsWhen(
      endpoint.id,
      (attempts) => new Set(attempts.filter((a) => a.outcome === 'failed').map((a) => a.event_id)).size === 2,
    );
    const events = [...new Set(failed.filter((a) => a.outcome === 'failed').map((a: Body) => a.event_id as string))].sort();
    const replay = (body: unknown) => api.call('POST', `/v1/nature/webhook_endpoints/${endpoint.id}/replay_failed`, body);

    // Retries run out: the endpoint is disabled, and a replay waits for it to be enabled.
    await eventually(async () =>
      (await api.call('GET', `/v1/nature/webhook_endpoints/${endpoint.id}`)).body.status === 'disabled' ? true : undefined,
    );
    expect((await replay({ since })).body).toMatchObject({ status: 422, code: 'validation_failed' });
    await api.call('PATCH', `/v1/nature/webhook_endpoints/${endpoint.id}`, { status: 'enabled' });
    expect((await replay({ since: 'yesterday' })).body).toMatchObject({
      status: 422,
      errors: [expect.objectContaining({ path: '/since' })],
    });
    // Nothing failed after now.
    expect((await replay({ since: new Date(Date.now() + 60_000).toISOString() })).body).toMatchObject({ queued: 0, remaining: 0 });

    healthy = true;
    const before = receiver.received.length;
    const answer = await replay({ since });
    expect(answer.status).toBe(202);
    expect(answer.body).toMatchObject({ object: 'replay', endpoint_id: endpoint.id, queued: 2, remaining: 0 });
    await receiver.waitFor(before + 2);
    const replayed = receiver.received.slice(before);
    expect(replayed.every((delivery) => delivery.verified.ok)).toBe(true);
    expect(replayed.map((delivery) => JSON.parse(delivery.body).id).sort()).toEqual(events);
    // Delivered now: a second replay finds nothing to send.
    await eventually(async () => {
      const attempts = await api.deliveries(endpoint.id);
      return attempts.filter((a) => a.outcome === 'succeeded').length >= 2 ? true : undefined;
    });
    expect((await replay({ since })).body).toMatchObject({ queued: 0, remaining: 0 });
    expect((await api.call('POST', '/v1/nature/webhook_endpoints/whe_01JD4Z8Q3V6N2XK7M5T9B1C0ZZ/replay_failed', { since })).status).toBe(
      404,
    );
    await receiver.close();
  });
});
