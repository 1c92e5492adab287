import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Body, client } from '../support/api-client.js';
import { Browser, dashboardUser } from '../support/dashboard.js';
import { eventually } from '../support/eventually.js';
import { type Received, receiverPool } from '../support/receiver.js';
import { auth, openTestApp, type TestApp, validSubject } from '../support/test-app.js';

const LIFECYCLE = [
  'nature.subject.created',
  'nature.assessment.started',
  'nature.assessment.abandoned',
  'nature.assessment.expired',
  'nature.subject.erased',
];
const DAY_MS = 24 * 60 * 60 * 1000;

/** The events a receiver got, in arrival order. */
const eventsOf = (received: readonly Received[]) => received.map((each) => JSON.parse(each.body) as Body);

describe('lifecycle events (nature.subject.*, nature.assessment.started/abandoned/expired)', () => {
  let t: TestApp;
  let key: string;
  let api: ReturnType<typeof client>;
  const receivers = receiverPool();
  beforeAll(async () => {
    // The expiry watch looks every 100 ms here (15 s by default), so an advanced clock is noticed promptly.
    t = await openTestApp({ NATURE_EXPIRY_CHECK_MS: '100' });
    key = (await t.mint('test', 'sk')).raw;
    api = client(t, key);
  });
  afterEach(() => receivers.closeAll());
  afterAll(() => t.close());

  /** Waits until the receiver holds an event of `type` about `id` (a subject's or an assessment's), and answers it. */
  const heard = (received: readonly Received[], type: string, id: string) =>
    eventually(async () =>
      eventsOf(received).find((event) => event.type === type && (event.data.assessment_id ?? event.data.subject_id) === id),
    );

  it('tells an endpoint that subscribes of each step, with ids only, signed as every event is', async () => {
    const receiver = await receivers.start();
    const endpoint = await api.register(receiver.url, LIFECYCLE);
    receiver.useSecret(endpoint.secret);
    const person = validSubject();

    const subject = (await api.call('POST', '/v1/nature/subjects', person)).body;
    const created = await heard(receiver.received, 'nature.subject.created', subject.id);
    expect(created).toEqual({
      id: expect.stringMatching(/^evt_[0-9A-Z]{26}$/),
      object: 'event',
      type: 'nature.subject.created',
      created_at: subject.created_at,
      livemode: false,
      data: { subject_id: subject.id },
    });

    const first = (await api.call('POST', `/v1/nature/subjects/${subject.id}/assessments`, { language: 'fr' })).body;
    expect(await heard(receiver.received, 'nature.assessment.started', first.id)).toMatchObject({
      created_at: first.created_at,
      data: { assessment_id: first.id, subject_id: subject.id, language: 'fr', expires_at: first.expires_at },
    });
    expect((await api.call('DELETE', `/v1/nature/subjects/${subject.id}/assessments/${first.id}`)).status).toBe(200);
    expect(await heard(receiver.received, 'nature.assessment.abandoned', first.id)).toMatchObject({
      data: { assessment_id: first.id, subject_id: subject.id, reason: 'requested' },
    });

    // Erased with an assessment open: the erasure closes it, and both are told, after the erasure too.
    const third = (await api.call('POST', `/v1/nature/subjects/${subject.id}/assessments`, {})).body;
    await heard(receiver.received, 'nature.assessment.started', third.id);
    expect((await api.call('DELETE', `/v1/nature/subjects/${subject.id}`)).status).toBe(200);
    expect(await heard(receiver.received, 'nature.assessment.abandoned', third.id)).toMatchObject({ data: { reason: 'erasure' } });
    const erased = await heard(receiver.received, 'nature.subject.erased', subject.id);
    expect(erased.data).toEqual({ subject_id: subject.id });

    // Each step once, and nothing personal in any of them.
    const types = eventsOf(receiver.received).map((event) => event.type);
    expect(types.filter((type) => type === 'nature.subject.created')).toHaveLength(1);
    expect(types.filter((type) => type === 'nature.assessment.started')).toHaveLength(2);
    for (const { body, verified } of receiver.received) {
      expect(verified).toMatchObject({ ok: true });
      expect(body).not.toContain(person.external_subject_id);
      expect(body).not.toContain(person.metadata.cohort);
    }

    // Listed like every event, and the erasure's own event may be sent again after the erasure.
    const listed = (await api.call('GET', '/v1/nature/events?limit=100')).body.data.map((event: Body) => event.id);
    expect(listed).toContain(erased.id);
    const again = await t.app.inject({ method: 'POST', url: `/v1/nature/events/${erased.id}/redeliver`, headers: auth(key) });
    expect(again.statusCode).toBe(202);
    await eventually(async () => eventsOf(receiver.received).filter((event) => event.id === erased.id).length === 2 || undefined);
    // The subject's other events are not sent again once it is erased.
    const refused = await t.app.inject({ method: 'POST', url: `/v1/nature/events/${created.id}/redeliver`, headers: auth(key) });
    expect(refused.statusCode).toBe(410);
    // The dashboard's Redeliver follows the same rule.
    const browser = new Browser(t.app);
    await browser.signIn(await dashboardUser(t));
    await browser.get(`/dashboard/sandbox/events/${erased.id}`);
    const fromDashboard = await browser.post(`/dashboard/sandbox/events/${erased.id}/redeliver`, {});
    expect(fromDashboard.statusCode).toBe(303);
    await eventually(async () => eventsOf(receiver.received).filter((event) => event.id === erased.id).length === 3 || undefined);
    await browser.get(`/dashboard/sandbox/events/${created.id}`);
    expect((await browser.post(`/dashboard/sandbox/events/${created.id}/redeliver`, {})).statusCode).toBe(410);
  });

  it('sends none of them to an endpoint that did not subscribe: the default is nature.assessment.completed alone', async () => {
    const receiver = await receivers.start();
    const endpoint = await api.register(receiver.url);
    receiver.useSecret(endpoint.secret);
    const { subjectId } = await api.completeAssessment();
    const [delivery] = await receiver.waitFor(1);
    expect(JSON.parse(delivery!.body)).toMatchObject({ type: 'nature.assessment.completed', data: { subject_id: subjectId } });
    // The lifecycle events of that subject exist, and were not sent here.
    const listed = (await api.call('GET', '/v1/nature/events?limit=100')).body.data as Body[];
    const lifecycle = listed.filter((event) => event.data.subject_id === subjectId && event.type !== 'nature.assessment.completed');
    expect(lifecycle.map((event) => event.type).sort()).toEqual(['nature.assessment.started', 'nature.subject.created']);
    const registeredLater = await receivers.start();
    const other = await api.register(registeredLater.url, ['nature.assessment.completed']);
    registeredLater.useSecret(other.secret);
    await api.completeAssessment();
    await registeredLater.waitFor(1);
    await receiver.waitFor(2);
    expect(eventsOf(receiver.received).map((event) => event.type)).toEqual(['nature.assessment.completed', 'nature.assessment.completed']);
  });

  it('publishes a lifecycle event only where an enabled endpoint listens to its type: no one else pays for it', async () => {
    const quiet = await openTestApp();
    try {
      const other = client(quiet, (await quiet.mint('test', 'sk')).raw);
      const published = async (eventId: string) => (await quiet.envs.test.events.readStream(`notification-${eventId}`)).revision >= 0n;
      const { subjectId, assessmentId } = await other.completeAssessment();
      const listed = async () => (await other.call('GET', '/v1/nature/events?limit=100')).body.data as Body[];
      const completion = await eventually(async () => (await listed()).find((event) => event.type === 'nature.assessment.completed'));
      // The publisher takes the log in order: once the completion is published, the subject's creation was passed over.
      await eventually(async () => (await published(completion.id)) || undefined);
      const created = (await listed()).find((event) => event.type === 'nature.subject.created' && event.data.subject_id === subjectId)!;
      const started = (await listed()).find(
        (event) => event.type === 'nature.assessment.started' && event.data.assessment_id === assessmentId,
      )!;
      expect(await published(created.id)).toBe(false);
      expect(await published(started.id)).toBe(false);
      // Once an endpoint listens, the next one is published and delivered.
      const receiver = await receivers.start();
      const endpoint = await other.register(receiver.url, ['nature.subject.created']);
      receiver.useSecret(endpoint.secret);
      const next = (await other.call('POST', '/v1/nature/subjects', validSubject())).body;
      const heardOf = await heard(receiver.received, 'nature.subject.created', next.id);
      expect(await published(heardOf.id)).toBe(true);
      // A caller may still have one sent by hand: a redelivery to the endpoint.
      const again = await quiet.app.inject({
        method: 'POST',
        url: `/v1/nature/events/${created.id}/redeliver`,
        headers: auth((await quiet.mint('test', 'sk')).raw),
        payload: { endpoint_id: endpoint.id },
      });
      expect(again.statusCode).toBe(202);
      await heard(receiver.received, 'nature.subject.created', subjectId);
    } finally {
      await quiet.close();
    }
  });

  // Last: it moves the app's clock a week on, past what a receiver's signature check tolerates (5 minutes), so these
  // deliveries are read, not verified; the signing is the same code the other tests verify.
  it('records and tells nature.assessment.expired when the expiry is reached, with no one reading the assessment', async () => {
    const receiver = await receivers.start();
    const endpoint = await api.register(receiver.url, ['nature.assessment.expired']);
    receiver.useSecret(endpoint.secret);
    const subject = (await api.call('POST', '/v1/nature/subjects', validSubject())).body;
    const started = (await api.call('POST', `/v1/nature/subjects/${subject.id}/assessments`, {})).body;
    t.advance(7 * DAY_MS + 60_000);
    const expired = await heard(receiver.received, 'nature.assessment.expired', started.id);
    expect(expired).toMatchObject({ data: { assessment_id: started.id, subject_id: subject.id, expires_at: started.expires_at } });
    expect(Date.parse(expired.created_at)).toBeGreaterThanOrEqual(Date.parse(started.expires_at));
    // Recorded: the read model says expired, and its updated_at is when the watch recorded it.
    const read = (await api.call('GET', `/v1/nature/subjects/${subject.id}/assessments/${started.id}`)).body;
    expect(read).toMatchObject({ status: 'expired', updated_at: expired.created_at });
    // Listed like every event, once.
    const listed = (await api.call('GET', '/v1/nature/events?limit=100')).body.data as Body[];
    expect(listed.filter((event) => event.type === 'nature.assessment.expired' && event.data.assessment_id === started.id)).toHaveLength(1);
    expect(eventsOf(receiver.received).filter((event) => event.data.assessment_id === started.id)).toHaveLength(1);
  });
});
