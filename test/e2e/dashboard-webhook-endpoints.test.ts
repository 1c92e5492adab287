import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeXml } from '../../src/charts/svg-markup.js';
import { toTheSecond } from '../../src/dashboard/layout.js';
import { client } from '../support/api-client.js';
import { Browser, csrfOf, dashboardUser } from '../support/dashboard.js';
import { startReceiver } from '../support/receiver.js';
import { openTestApp, type TestApp } from '../support/test-app.js';

describe('webhook endpoints on the dashboard: deleting one, attempts to the second, health over a day', () => {
  let t: TestApp;
  let browser: Browser;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    t = await openTestApp();
    api = client(t, (await t.mint('test', 'sk')).raw);
    browser = new Browser(t.app);
    await browser.signIn(await dashboardUser(t));
  });
  afterAll(() => t.close());

  it('deletes an endpoint once its box is ticked, as the API does, and records who did', async () => {
    const endpoint = await api.register('http://127.0.0.1:9/gone');
    const path = `/dashboard/sandbox/webhooks/${endpoint.id}`;
    const form = (await browser.get(path)).body;
    expect(form).toContain(`action="${path}/delete"`);
    // Without the box ticked: refused, nothing changed.
    expect((await browser.post(`${path}/delete`, {}, csrfOf(form), form)).statusCode).toBe(422);
    expect((await api.call('GET', `/v1/nature/webhook_endpoints/${endpoint.id}`)).status).toBe(200);

    const deleted = await browser.post(`${path}/delete`, { confirm: 'yes' }, csrfOf(form), form);
    expect(deleted.statusCode).toBe(303);
    expect(deleted.headers.location).toBe('/dashboard/sandbox/webhooks?done=deleted');
    const list = (await browser.get(String(deleted.headers.location))).body;
    expect(list).toContain('The endpoint is deleted');
    expect(list).not.toContain(endpoint.id);
    expect((await api.call('GET', `/v1/nature/webhook_endpoints/${endpoint.id}`)).status).toBe(404);
    expect((await browser.get('/dashboard/activity')).body).toContain('webhook_endpoint.deleted');
  });

  it("shows each attempt's time to the second, and the endpoint's health over the last 24 hours", async () => {
    const receiver = await startReceiver((n) => (n === 1 ? 200 : 503));
    const endpoint = await api.register(receiver.url);
    receiver.useSecret(endpoint.secret);
    const path = `/dashboard/sandbox/webhooks/${endpoint.id}`;
    const form = (await browser.get(path)).body;
    expect(form).toContain('No attempts in the last 24 hours.');
    expect((await browser.post(`${path}/test`, {}, csrfOf(form), form)).statusCode).toBe(303);
    const [attempt] = await api.attemptsWhen(endpoint.id, (attempts) => attempts.length === 1);
    const shown = (await browser.get(path)).body;
    expect(shown).toContain(`${attempt!.attempted_at.slice(0, 10)} ${attempt!.attempted_at.slice(11, 19)} UTC`);
    expect(shown).toContain(`<strong>100 %</strong> of 1 attempts succeeded · median ${attempt!.duration_ms} ms · no failed attempt`);

    // A second test event meets a 503: half succeeded, and the failure is named with its time.
    const again = (await browser.get(path)).body;
    expect((await browser.post(`${path}/test`, {}, csrfOf(again), again)).statusCode).toBe(303);
    const attempts = await api.attemptsWhen(endpoint.id, (list) => list.length === 2);
    const failed = attempts.find((listed) => listed.outcome !== 'succeeded')!;
    const health = (await browser.get(path)).body;
    expect(health).toContain('<strong>50 %</strong> of 2 attempts succeeded');
    expect(health).toContain(`last failure ${failed.attempted_at.slice(0, 10)} ${failed.attempted_at.slice(11, 19)} UTC: HTTP 503`);
    await receiver.close();
  });

  it("lists an event's attempts on every endpoint on its page, each linking to its endpoint", async () => {
    await api.deleteEndpoints();
    const [first, second] = [await startReceiver(), await startReceiver(() => 500)];
    const endpoints = [await api.register(first.url), await api.register(second.url)];
    first.useSecret(endpoints[0]!.secret);
    second.useSecret(endpoints[1]!.secret);
    await api.completeAssessment();
    const [one] = await api.attemptsWhen(endpoints[0]!.id, (attempts) => attempts.length === 1);
    const [other] = await api.attemptsWhen(endpoints[1]!.id, (attempts) => attempts.length >= 1);
    expect(other!.event_id).toBe(one!.event_id);
    const shown = (await browser.get(`/dashboard/sandbox/events/${one!.event_id}`)).body;
    expect(shown).toContain('Its attempts, on every endpoint');
    for (const endpoint of endpoints) expect(shown).toContain(`href="/dashboard/sandbox/webhooks/${endpoint.id}"`);
    expect(shown).toContain(toTheSecond(one!.attempted_at));
    await first.close();
    await second.close();
    await api.deleteEndpoints();
  });

  it('shows what each attempt sent, on its endpoint page and on its event page, and never the secret', async () => {
    const receiver = await startReceiver();
    const endpoint = await api.register(receiver.url);
    receiver.useSecret(endpoint.secret);
    await api.completeAssessment();
    const [delivered] = await receiver.waitFor(1);
    const [attempt] = await api.attemptsWhen(endpoint.id, (attempts) => attempts.length === 1);
    for (const path of [`/dashboard/sandbox/webhooks/${endpoint.id}`, `/dashboard/sandbox/events/${attempt!.event_id}`]) {
      const shown = (await browser.get(path)).body;
      expect(shown).toContain(`of attempt 1, ${attempt!.event_id}</span></summary>`);
      expect(shown).toContain(`webhook-signature: ${escapeXml(String(delivered!.headers['webhook-signature']))}`);
      expect(shown).toContain(`\n\n${escapeXml(delivered!.body)}</code></pre>`);
      expect(shown).not.toContain(endpoint.secret.slice('whsec_'.length));
    }
    await receiver.close();
    await api.deleteEndpoints();
  });

  it('replays the failed deliveries of a window from the endpoint page, once it is enabled', async () => {
    const endpoint = await api.register('http://127.0.0.1:9/replayed');
    const path = `/dashboard/sandbox/webhooks/${endpoint.id}`;
    const send = async (since: string) => {
      const form = (await browser.get(path)).body;
      const sent = await browser.post(`${path}/replay`, { since }, csrfOf(form), form);
      return sent.statusCode === 303 ? (await browser.get(String(sent.headers.location))).body : String(sent.statusCode);
    };
    expect(await send('24')).toContain('0 failed deliveries queued again.');
    expect(await send('30')).toBe('422');
    await api.call('PATCH', `/v1/nature/webhook_endpoints/${endpoint.id}`, { status: 'disabled' });
    expect(await send('1')).toContain('The endpoint is disabled: enable it first, then replay.');
    await api.deleteEndpoints();
  });
});
