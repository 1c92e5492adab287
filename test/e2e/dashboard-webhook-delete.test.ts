import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { client } from '../support/api-client.js';
import { Browser, csrfOf, dashboardUser } from '../support/dashboard.js';
import { startReceiver } from '../support/receiver.js';
import { openTestApp, type TestApp } from '../support/test-app.js';

describe('webhook endpoints on the dashboard: deleting one, and attempts to the second', () => {
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

  it("shows each attempt's time to the second", async () => {
    const receiver = await startReceiver();
    const endpoint = await api.register(receiver.url);
    receiver.useSecret(endpoint.secret);
    const path = `/dashboard/sandbox/webhooks/${endpoint.id}`;
    const form = (await browser.get(path)).body;
    expect((await browser.post(`${path}/test`, {}, csrfOf(form), form)).statusCode).toBe(303);
    const [attempt] = await api.attemptsWhen(endpoint.id, (attempts) => attempts.length === 1);
    const shown = (await browser.get(path)).body;
    const second = `${attempt!.attempted_at.slice(0, 10)} ${attempt!.attempted_at.slice(11, 19)} UTC`;
    expect(shown).toContain(second);
    await receiver.close();
  });
});
