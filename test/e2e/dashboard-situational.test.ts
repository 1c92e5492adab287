import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Body, client } from '../support/api-client.js';
import { Browser, dashboardUser, shownSecret } from '../support/dashboard.js';
import { eventually } from '../support/eventually.js';
import { decodeHtml } from '../support/html-text.js';
import { startReceiver } from '../support/receiver.js';
import { openTestApp, type TestApp } from '../support/test-app.js';

/** A page's words, tags out, whitespace as single spaces. */
const htmlText = (page: string) => decodeHtml(page.replace(/<[^>]+>/g, '')).replace(/\s+/g, ' ');

const SITUATION =
  'Leading a small team through a hard deadline: planning the work, keeping everyone calm and explaining the changes to the client.';
const SITUATIONAL = 'situational.assessment.completed';
const SIGNING_SECRET = /whsec_[0-9A-Za-z+/]{16,}={0,2}/;

describe('the dashboard and situational assessments', () => {
  let t: TestApp;
  let email: string;
  beforeAll(async () => {
    t = await openTestApp();
    email = await dashboardUser(t);
  });
  afterAll(() => t.close());

  const signedIn = async () => {
    const browser = new Browser(t.app);
    await browser.signIn(email);
    return browser;
  };

  /** A situational assessment requested with `key` for a subject with a profile, once it is no longer pending. */
  async function settledAssessment(key: string): Promise<Body> {
    const api = client(t, key);
    const { subjectId } = await api.completeAssessment();
    await api.profileOf(subjectId);
    const accepted = await api.call('POST', '/v1/situational/assessments', { subject_id: subjectId, situation_context: SITUATION });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    return eventually(async () => {
      const { body } = await api.call('GET', `/v1/situational/assessments/${accepted.body.id}`);
      return body.status === 'pending' ? undefined : body;
    });
  }

  /** The situational.assessment.completed event that announces the situational assessment `id`, once it is kept. */
  const eventOf = (key: string, id: string) =>
    eventually(async () => {
      const { body } = await client(t, key).call('GET', `/v1/nature/events?limit=100`);
      return (body.data as Body[]).find((event) => event.type === SITUATIONAL && event.data.id === id);
    });

  it('offers the situational scopes marked sk only, mints an sk key with them that the API accepts, and refuses them on a pk key', async () => {
    const browser = await signedIn();
    const page = (await browser.get('/dashboard/keys')).body;
    for (const scope of ['situational:read', 'situational:write'])
      expect(page).toMatch(
        new RegExp(`<input type="checkbox" name="scopes" value="${scope}"> ${scope} <span class="hint">\\(sk only\\)</span>`),
      );
    expect(page).not.toMatch(/value="nature:read"> nature:read <span/);
    expect(htmlText(page)).toContain('Scopes marked sk only are refused on publishable (pk) keys');

    const form = {
      name: 'situations',
      environment: 'test',
      type: 'sk',
      scopes: ['nature:read', 'nature:write', 'situational:read', 'situational:write'],
      origins: '',
    };
    const created = await browser.follow(await browser.post('/dashboard/keys', form));
    const raw = shownSecret(created.body, /test_sk_[0-9A-Za-z]{40}/);
    expect(htmlText(created.body)).toContain('nature:read, nature:write, situational:read, situational:write');
    expect(await settledAssessment(raw)).toMatchObject({ object: 'situational_assessment', status: 'completed' });

    for (const scopes of [['situational:read'], ['nature:read', 'situational:write']]) {
      await browser.get('/dashboard/keys');
      const refused = await browser.post('/dashboard/keys', { ...form, type: 'pk', scopes });
      expect(refused.statusCode).toBe(422);
      expect(htmlText(refused.body)).toContain('A pk (publishable) key cannot have situational scopes');
      // The form comes back as it was sent, to be corrected.
      for (const scope of scopes) expect(refused.body).toContain(`value="${scope}" checked`);
    }
    expect((await t.keys.list()).filter((key) => key.type === 'pk')).toEqual([]);
  });

  it('adds an endpoint listening to situational.assessment.completed only, which receives it, and edits its events', async () => {
    const key = (await t.mint('test', 'sk', ['nature:read', 'nature:write', 'situational:read', 'situational:write'])).raw;
    const receiver = await startReceiver();
    const browser = await signedIn();
    const list = (await browser.get('/dashboard/sandbox/webhooks')).body;
    expect(list).toContain(`<input type="checkbox" name="enabled_events" value="${SITUATIONAL}"> ${SITUATIONAL}`);

    const posted = await browser.post('/dashboard/sandbox/webhooks', { url: receiver.url, enabled_events: SITUATIONAL });
    const endpointId = /^\/dashboard\/sandbox\/webhooks\/(whe_[0-9A-Z]{26})(?:\?|$)/.exec(String(posted.headers.location))![1]!;
    const added = await browser.follow(posted);
    receiver.useSecret(shownSecret(added.body, SIGNING_SECRET));
    expect(htmlText(added.body)).toContain(`Events: ${SITUATIONAL} ·`);
    expect(added.body).toContain(`value="${SITUATIONAL}" checked`);
    expect(added.body).not.toContain('value="nature.assessment.completed" checked');

    // The nature completion is not sent to it; the situational one is, signed.
    const assessment = await settledAssessment(key);
    const [delivery] = await receiver.waitFor(1);
    expect(delivery!.verified.ok).toBe(true);
    expect(JSON.parse(delivery!.body)).toMatchObject({
      type: SITUATIONAL,
      data: { id: assessment.id, subject_id: assessment.subject_id, status: 'completed' },
    });

    const edited = await browser.post(`/dashboard/sandbox/webhooks/${endpointId}`, {
      url: receiver.url,
      enabled_events: ['nature.assessment.completed', SITUATIONAL],
    });
    const saved = await browser.follow(edited);
    expect(htmlText(saved.body)).toContain(`Events: nature.assessment.completed, ${SITUATIONAL} ·`);
    const endpoint = await client(t, key).call('GET', `/v1/nature/webhook_endpoints/${endpointId}`);
    expect(endpoint.body.enabled_events).toEqual(['nature.assessment.completed', SITUATIONAL]);
    // Back to situational only: the edit form offers and keeps the choice.
    await browser.follow(
      await browser.post(`/dashboard/sandbox/webhooks/${endpointId}`, { url: receiver.url, enabled_events: SITUATIONAL }),
    );
    expect((await client(t, key).call('GET', `/v1/nature/webhook_endpoints/${endpointId}`)).body.enabled_events).toEqual([SITUATIONAL]);
    await client(t, key).deleteEndpoints();
    await receiver.close();
  });

  it('lists situational events, filtered by type, and shows one with its situational assessment id and status', async () => {
    const key = (await t.mint('test', 'sk', ['nature:read', 'nature:write', 'situational:read', 'situational:write'])).raw;
    const assessment = await settledAssessment(key);
    const event = await eventOf(key, assessment.id);
    const browser = await signedIn();

    const all = (await browser.get('/dashboard/sandbox/events')).body;
    expect(all).toContain(`<option value="${SITUATIONAL}">${SITUATIONAL}</option>`);
    expect(all).toContain(`<code>${event.id}</code>`);

    const filtered = await browser.get(`/dashboard/sandbox/events?type=${SITUATIONAL}`);
    expect(filtered.statusCode).toBe(200);
    expect(filtered.body).toContain(`<option value="${SITUATIONAL}" selected>`);
    expect(filtered.body).toContain(
      `<a href="/dashboard/sandbox/events/${event.id}"><code>${event.id}</code></a></td><td>${SITUATIONAL}</td>`,
    );
    // Only situational events under that filter, and none of them under the nature completions'.
    const rowTypes = [...filtered.body.matchAll(/<\/code><\/a><\/td><td>([a-z._]+)<\/td>/g)].map((match) => match[1]);
    expect(rowTypes.length).toBeGreaterThan(0);
    expect(new Set(rowTypes)).toEqual(new Set([SITUATIONAL]));
    const nature = (await browser.get('/dashboard/sandbox/events?type=nature.assessment.completed')).body;
    expect(nature).not.toContain(event.id);
    expect(nature).toContain('nature.assessment.completed</td>');

    const shown = await browser.get(`/dashboard/sandbox/events/${event.id}`);
    expect(shown.statusCode).toBe(200);
    expect(htmlText(shown.body)).toContain(`${SITUATIONAL} ·`);
    const json = JSON.parse(decodeHtml(/<pre[^>]*><code>([\s\S]*?)<\/code><\/pre>/.exec(shown.body)![1]!));
    expect(json).toEqual(event);
    expect(json.data).toEqual({ id: assessment.id, subject_id: assessment.subject_id, status: 'completed' });
    expect(json.data).not.toHaveProperty('profile_id');

    // Sent again from its page, as the API's redeliver does.
    const redelivered = await browser.post(`/dashboard/sandbox/events/${event.id}/redeliver`, {});
    expect(redelivered.statusCode).toBe(303);
    expect(redelivered.headers.location).toBe(`/dashboard/sandbox/events/${event.id}?done=redelivered`);
    expect(htmlText((await browser.follow(redelivered)).body)).toContain(`Redeliver to every endpoint that listens to ${SITUATIONAL}`);
  });
});
