import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createNatureClient, isNatureApiError, type NatureClient, verifyWebhook } from '../../packages/client/src/index.js';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { serverPool } from '../support/processes.js';
import { receiverPool } from '../support/receiver.js';
import { tempDir } from '../support/temp-dir.js';

/** The rejection of `call`, which must be a NatureApiError. */
async function rejectionOf(call: Promise<unknown>): Promise<unknown> {
  return call.then(
    (value) => {
      throw new Error(`expected an error, got ${JSON.stringify(value)}`);
    },
    (error: unknown) => error,
  );
}

const consent = {
  text_version: 'consent-v3',
  granted_at: '2026-11-01T09:30:00Z',
  ui_hash: 'sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
};

describe('the typed client by path, against the server process', () => {
  let dir: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  const servers = serverPool(() => env);
  const receivers = receiverPool();
  beforeEach(() => {
    dir = tempDir();
    env = { NATURE_DATA_DIR: dir.path };
  });
  afterEach(async () => {
    await servers.killAll();
    await receivers.closeAll();
    dir.cleanup();
  });

  /** A key minted with the operator command, as the quickstart does. */
  const mintKey = async () => JSON.parse((await runCliInProcess(keyCreateArgs('test', 'my backend'), env)).stdout).key as string;

  it('creates, reads, lists and finds a subject, completes an assessment, reads the profile and audit, erases; the webhook verifies', async () => {
    const server = await servers.start();
    const nature: NatureClient = createNatureClient({ apiKey: await mintKey(), baseUrl: server.url });
    const receiver = await receivers.start();
    const endpoint = await nature.POST('/v1/nature/webhook_endpoints', { body: { url: receiver.url, description: 'walk-through' } });
    expect(endpoint.secret).toMatch(/^whsec_/);

    // Create a subject; read it, list subjects, find it by your own id.
    const subject = await nature.POST('/v1/nature/subjects', {
      body: { external_subject_id: 'emp-0042', metadata: { cohort: '2026-spring', role: 'analyst' }, consent },
    });
    expect(subject).toMatchObject({ object: 'subject', external_subject_id: 'emp-0042', status: 'active', livemode: false });
    expect(await nature.GET('/v1/nature/subjects/{id}', { params: { path: { id: subject.id } } })).toEqual(subject);
    const page = await nature.GET('/v1/nature/subjects', { params: { query: { limit: 2 } } });
    expect(page).toMatchObject({ object: 'list', has_more: false });
    expect(page.data.map((s) => s.id)).toEqual([subject.id]);
    const found = await nature.GET('/v1/nature/subjects', { params: { query: { external_subject_id: 'emp-0042' } } });
    expect(found.data.map((s) => s.id)).toEqual([subject.id]);

    // The same external_subject_id again: 409 subject_exists, narrowed to carry the existing id.
    const conflict = await rejectionOf(nature.POST('/v1/nature/subjects', { body: { external_subject_id: 'emp-0042', consent } }));
    if (!isNatureApiError(conflict, 'subject_exists')) throw conflict;
    expect(conflict).toMatchObject({
      status: 409,
      code: 'subject_exists',
      subject_id: subject.id,
      request_id: expect.stringMatching(/^req_/),
    });

    // The item bank, then an assessment answered in 4 batches of 19.
    const items = await nature.GET('/v1/nature/items');
    expect(items.data).toHaveLength(76);
    const started = await nature.POST('/v1/nature/subjects/{id}/assessments', {
      params: { path: { id: subject.id } },
      body: { language: 'en' },
    });
    expect(started).toMatchObject({ object: 'assessment', status: 'created', responses_required: 76 });
    const statuses: string[] = [];
    for (let batch = 0; batch < 4; batch += 1) {
      const responses = items.data.slice(batch * 19, batch * 19 + 19).map((item) => ({ item_id: item.id, value: 4 }));
      const assessment = await nature.PATCH('/v1/nature/subjects/{id}/assessments/{assessment_id}', {
        params: { path: { id: subject.id, assessment_id: started.id } },
        body: { responses },
      });
      statuses.push(`${assessment.status} ${assessment.responses_received}`);
    }
    expect(statuses).toEqual(['in_progress 19', 'in_progress 38', 'in_progress 57', 'scoring 76']);

    // The profile, the same by the subject and by its id; the webhook names it and verifies with the library.
    const profile = await nature.GET('/v1/nature/subjects/{id}/profile', { params: { path: { id: subject.id } } });
    expect(profile).toMatchObject({ object: 'profile', subject_id: subject.id, assessment_id: started.id, status: 'current' });
    expect(Object.values(profile.natures).every((score) => score === 0.75)).toBe(true);
    expect(await nature.GET('/v1/nature/profiles/{id}', { params: { path: { id: profile.id } } })).toEqual(profile);
    const [delivery] = await receiver.waitFor(1);
    const event = verifyWebhook(delivery!.body, delivery!.headers, endpoint.secret);
    expect(event).toMatchObject({
      type: 'nature.assessment.completed',
      data: { profile_id: profile.id, assessment_id: started.id, subject_id: subject.id },
    });
    expect(await nature.GET('/v1/nature/events/{id}', { params: { path: { id: event.id } } })).toEqual(event);

    // The history, oldest first, read 2 entries a page through the list iterator.
    const history: string[] = [];
    for await (const entry of nature.list('/v1/nature/subjects/{id}/audit', { params: { path: { id: subject.id }, query: { limit: 2 } } }))
      history.push(entry.type);
    expect(history).toEqual([
      'subject.created',
      'consent.recorded',
      'assessment.started',
      ...Array(4).fill('responses.submitted'),
      'assessment.scored',
    ]);

    // Erasure; afterwards the subject answers 410 subject_erased.
    expect(await nature.DELETE('/v1/nature/subjects/{id}', { params: { path: { id: subject.id } } })).toEqual({
      id: subject.id,
      object: 'subject',
      deleted: true,
    });
    const gone = await rejectionOf(nature.GET('/v1/nature/subjects/{id}', { params: { path: { id: subject.id } } }));
    if (!isNatureApiError(gone, 'subject_erased')) throw gone;
    expect(gone).toMatchObject({ status: 410, subject_id: subject.id });
  });

  it('lists every subject page by page, forwards and backwards', async () => {
    const server = await servers.start();
    const nature = createNatureClient({ apiKey: await mintKey(), baseUrl: server.url });
    const created: string[] = [];
    for (let i = 0; i < 5; i += 1)
      created.push((await nature.POST('/v1/nature/subjects', { body: { external_subject_id: `emp-${i}`, consent } })).id);
    const newestFirst = created.toReversed();

    const forwards: string[] = [];
    for await (const subject of nature.list('/v1/nature/subjects', { params: { query: { limit: 2 } } })) forwards.push(subject.id);
    expect(forwards).toEqual(newestFirst);
    const after: string[] = [];
    for await (const subject of nature.list('/v1/nature/subjects', { params: { query: { limit: 2, starting_after: newestFirst[0] } } }))
      after.push(subject.id);
    expect(after).toEqual(newestFirst.slice(1));
    const before: string[] = [];
    for await (const subject of nature.list('/v1/nature/subjects', { params: { query: { limit: 2, ending_before: newestFirst[4] } } }))
      before.push(subject.id);
    expect(before).toEqual(newestFirst.slice(0, 4).toReversed());
  });

  it('sends one Idempotency-Key per call and the same on its retry: a create whose answer was lost makes one subject', async () => {
    const server = await servers.start();
    const sent: Request[] = [];
    let dropNextAnswer = true;
    const nature = createNatureClient({
      apiKey: await mintKey(),
      baseUrl: server.url,
      retries: { baseDelayMs: 10 },
      async fetch(request) {
        sent.push(request.clone());
        const response = await fetch(request);
        if (request.method === 'POST' && dropNextAnswer) {
          // The server did the work; the connection drops before the caller reads the answer.
          dropNextAnswer = false;
          await response.body?.cancel();
          throw new TypeError('fetch failed');
        }
        return response;
      },
    });
    const subject = await nature.POST('/v1/nature/subjects', { body: { external_subject_id: 'emp-lost-answer', consent } });
    const keys = sent.map((request) => request.headers.get('idempotency-key'));
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(await Promise.all(sent.map((request) => request.json()))).toEqual([
      { external_subject_id: 'emp-lost-answer', consent },
      { external_subject_id: 'emp-lost-answer', consent },
    ]);
    const found = await nature.GET('/v1/nature/subjects', { params: { query: { external_subject_id: 'emp-lost-answer' } } });
    expect(found.data.map((s) => s.id)).toEqual([subject.id]);

    // The replay says so; a new call gets a new key, so the same body again is a new create (409 here).
    const replayed = await nature.raw.POST('/v1/nature/subjects', {
      body: { external_subject_id: 'emp-lost-answer', consent },
      headers: { 'idempotency-key': keys[0]! },
    });
    expect(replayed.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.data?.id).toBe(subject.id);
    const again = await rejectionOf(nature.POST('/v1/nature/subjects', { body: { external_subject_id: 'emp-lost-answer', consent } }));
    expect(isNatureApiError(again, 'subject_exists')).toBe(true);
    expect(sent.at(-1)!.headers.get('idempotency-key')).not.toBe(keys[0]);
    // Reads carry no key.
    expect(sent.filter((request) => request.method === 'GET').map((request) => request.headers.has('idempotency-key'))).toEqual([false]);
  });

  it('waits out 429 rate_limited as Retry-After says, then succeeds', async () => {
    env = { ...env, NATURE_RATE_LIMIT_PER_SECOND: '2', NATURE_RATE_LIMIT_BURST: '2' };
    const server = await servers.start();
    const statuses: number[] = [];
    const nature = createNatureClient({
      apiKey: await mintKey(),
      baseUrl: server.url,
      async fetch(request) {
        const response = await fetch(request);
        statuses.push(response.status);
        return response;
      },
    });
    for (let i = 0; i < 4; i += 1) expect((await nature.GET('/v1/nature/items')).data).toHaveLength(76);
    expect(statuses).toContain(429);
    expect(statuses.filter((status) => status === 200)).toHaveLength(4);

    // Without retries the 429 reaches the caller, typed.
    const impatient = createNatureClient({ apiKey: await mintKey(), baseUrl: server.url, retries: { maxRetries: 0 } });
    const limited = await eventually(async () => {
      const error = await impatient.GET('/v1/nature/items').then(
        () => undefined,
        (error: unknown) => error,
      );
      return isNatureApiError(error, 'rate_limited') ? error : undefined;
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });
});
