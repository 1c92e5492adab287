import { createHash } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { fingerprintOf } from '../../src/http/idempotency.js';
import { seal } from '../../src/privacy/pii-envelope.js';
import { filesContaining } from '../support/byte-scan.js';
import { knownResponses } from '../support/known-answers.js';
import { expectProblem } from '../support/problems.js';
import { auth, logLength, openTestApp, type TestApp, validSubject } from '../support/test-app.js';

describe('Idempotency-Key on POST and PATCH', () => {
  const apps: TestApp[] = [];
  async function open(settings: Record<string, string> = {}) {
    const t = await openTestApp(settings);
    apps.push(t);
    return t;
  }
  afterEach(async () => {
    for (const t of apps.splice(0).reverse()) await t.close();
  });

  const send = (t: TestApp, key: string, method: 'POST' | 'PATCH', url: string, payload: unknown, idempotencyKey?: string) =>
    t.app.inject({
      method,
      url,
      headers: { ...auth(key), ...(idempotencyKey !== undefined && { 'idempotency-key': idempotencyKey }) },
      ...(payload !== undefined && { payload: payload as object }),
    });

  it('replays the first answer byte for byte, marked idempotent-replayed, and writes once', async () => {
    const t = await open();
    const key = (await t.mint('test', 'sk')).raw;
    const subject = validSubject('emp-idem');
    const first = await send(t, key, 'POST', '/v1/nature/subjects', subject, 'create-emp-idem');
    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const events = await logLength(t.envs, 'test');

    const again = await send(t, key, 'POST', '/v1/nature/subjects', subject, 'create-emp-idem');
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(again.headers).toMatchObject({
      'idempotent-replayed': 'true',
      'content-type': first.headers['content-type'],
      'request-id': first.headers['request-id'],
    });
    expect(await logLength(t.envs, 'test')).toBe(events);
    const list = await t.app.inject({ url: '/v1/nature/subjects', headers: auth(key) });
    expect(list.json().data).toHaveLength(1);
  });

  it('registers a webhook endpoint once when its POST is retried, with the same secret', async () => {
    const t = await open();
    const key = (await t.mint('test', 'sk')).raw;
    const body = { url: 'http://127.0.0.1:9/hooks' };
    const first = await send(t, key, 'POST', '/v1/nature/webhook_endpoints', body, 'endpoint-1');
    const again = await send(t, key, 'POST', '/v1/nature/webhook_endpoints', body, 'endpoint-1');
    expect(first.statusCode).toBe(201);
    expect(again.json()).toEqual(first.json());
    const list = await t.app.inject({ url: '/v1/nature/webhook_endpoints', headers: auth(key) });
    expect(list.json().data.map((endpoint: { id: string }) => endpoint.id)).toEqual([first.json().id]);
  });

  it('replays PATCHed responses and starts of assessments, and answers 422 idempotency_key_reused to another request', async () => {
    const t = await open();
    const key = (await t.mint('test', 'sk')).raw;
    const subject = (await send(t, key, 'POST', '/v1/nature/subjects', validSubject())).json();
    const start = `/v1/nature/subjects/${subject.id}/assessments`;
    const started = await send(t, key, 'POST', start, undefined, 'start-1');
    expect((await send(t, key, 'POST', start, undefined, 'start-1')).body).toBe(started.body);
    const url = `${start}/${started.json().id}`;
    const batch = { responses: knownResponses.slice(0, 10) };
    const patched = await send(t, key, 'PATCH', url, batch, 'batch-1');
    expect(patched.json().responses_received).toBe(10);
    const replayed = await send(t, key, 'PATCH', url, batch, 'batch-1');
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toBe(patched.body);

    const events = await logLength(t.envs, 'test');
    // The same key with another body, another path or another method.
    expectProblem(await send(t, key, 'PATCH', url, { responses: knownResponses.slice(10, 20) }, 'batch-1'), 422, 'idempotency_key_reused');
    expectProblem(await send(t, key, 'POST', '/v1/nature/subjects', validSubject(), 'batch-1'), 422, 'idempotency_key_reused');
    expectProblem(await send(t, key, 'POST', url, batch, 'batch-1'), 405, 'method_not_allowed');
    expect(await logLength(t.envs, 'test')).toBe(events);
  });

  it('answers 409 idempotency_key_in_use while the first request with the key still runs, then lets it run', async () => {
    const t = await open();
    const key = (await t.mint('test', 'sk')).raw;
    const subject = validSubject('emp-in-flight');
    // The first request is in flight (on another server process, say): it holds the key with this fingerprint.
    const held = await t.envs.test.idempotency.claim({
      key: 'in-flight',
      fingerprint: fingerprintOf('POST', '/v1/nature/subjects', subject),
      now: new Date(),
      leaseMs: 30_000,
      ttlMs: 86_400_000,
    });
    const busy = await send(t, key, 'POST', '/v1/nature/subjects', subject, 'in-flight');
    expectProblem(busy, 409, 'idempotency_key_in_use');
    expect(busy.headers['retry-after']).toBe('1');
    expect(await logLength(t.envs, 'test')).toBe(0);
    await t.envs.test.idempotency.release('in-flight', held.outcome === 'claimed' ? held.holder : '');
    expect((await send(t, key, 'POST', '/v1/nature/subjects', subject, 'in-flight')).statusCode).toBe(201);
  });

  it('takes a body with its members in another order, at any depth, for the same request: a replay, not 422', async () => {
    const t = await open();
    const key = (await t.mint('test', 'sk')).raw;
    const { consent } = validSubject();
    const first = await send(
      t,
      key,
      'POST',
      '/v1/nature/subjects',
      { external_subject_id: 'emp-order', metadata: { a: '1', b: '2' }, consent },
      'ordered',
    );
    expect(first.statusCode).toBe(201);
    const reordered = {
      consent: { ui_hash: consent.ui_hash, granted_at: consent.granted_at, text_version: consent.text_version },
      metadata: { b: '2', a: '1' },
      external_subject_id: 'emp-order',
    };
    const retry = await send(t, key, 'POST', '/v1/nature/subjects', reordered, 'ordered');
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.body).toBe(first.body);
    // What the request means still counts: another value is another request.
    expectProblem(
      await send(t, key, 'POST', '/v1/nature/subjects', { ...reordered, metadata: { b: '2', a: '3' } }, 'ordered'),
      422,
      'idempotency_key_reused',
    );
  });

  it('still knows a key first used before fingerprints were canonical (its body in its own member order)', async () => {
    const t = await open();
    const key = (await t.mint('test', 'sk')).raw;
    const subject = validSubject('emp-before');
    // As the previous version stored it: the validated body's members in their order, unsorted.
    const ordered = createHash('sha256')
      .update(`POST /v1/nature/subjects\n${JSON.stringify(subject)}`)
      .digest('base64url');
    expect(ordered).not.toBe(fingerprintOf('POST', '/v1/nature/subjects', subject));
    const held = await t.envs.test.idempotency.claim({
      key: 'before',
      fingerprint: ordered,
      now: new Date(),
      leaseMs: 30_000,
      ttlMs: 86_400_000,
    });
    expect(held.outcome).toBe('claimed');
    expectProblem(await send(t, key, 'POST', '/v1/nature/subjects', subject, 'before'), 409, 'idempotency_key_in_use');
  });

  it('runs concurrent retries of one request once', async () => {
    const t = await open();
    const key = (await t.mint('test', 'sk')).raw;
    const subject = validSubject('emp-concurrent');
    const answers = await Promise.all(Array.from({ length: 8 }, () => send(t, key, 'POST', '/v1/nature/subjects', subject, 'together')));
    const originals = answers.filter((answer) => answer.statusCode === 201 && answer.headers['idempotent-replayed'] === undefined);
    expect(originals).toHaveLength(1);
    for (const answer of answers) {
      if (answer.statusCode === 201) expect(answer.body).toBe(originals[0]!.body);
      else expectProblem(answer, 409, 'idempotency_key_in_use');
    }
    expect((await t.app.inject({ url: '/v1/nature/subjects', headers: auth(key) })).json().data).toHaveLength(1);
  });

  it('stores nothing for a request refused by authentication or validation: the key stays free', async () => {
    const t = await open();
    const key = (await t.mint('test', 'sk')).raw;
    const readOnly = (await t.mint('test', 'sk', ['nature:read'])).raw;
    const subject = validSubject('emp-free');
    expectProblem(await send(t, `${key}x`, 'POST', '/v1/nature/subjects', subject, 'free'), 401, 'unauthenticated');
    expectProblem(await send(t, readOnly, 'POST', '/v1/nature/subjects', subject, 'free'), 403, 'insufficient_scope');
    expectProblem(await send(t, key, 'POST', '/v1/nature/subjects', { ...subject, extra: 1 }, 'free'), 422, 'validation_failed');
    // A refusal found by the handler (a live webhook URL on a private address) is validation too.
    const live = (await t.mint('live', 'sk')).raw;
    expectProblem(
      await send(t, live, 'POST', '/v1/nature/webhook_endpoints', { url: 'https://10.0.0.1/h' }, 'free-live'),
      422,
      'validation_failed',
    );
    expect(
      (await send(t, live, 'POST', '/v1/nature/webhook_endpoints', { url: 'https://hooks.example.com/h' }, 'free-live')).statusCode,
    ).toBe(201);

    const created = await send(t, key, 'POST', '/v1/nature/subjects', subject, 'free');
    expect(created.statusCode).toBe(201);
    expect(created.headers['idempotent-replayed']).toBeUndefined();
  });

  it('replays a domain refusal (409 subject_exists) as it was first answered', async () => {
    const t = await open();
    const key = (await t.mint('test', 'sk')).raw;
    await send(t, key, 'POST', '/v1/nature/subjects', validSubject('emp-taken'));
    const refused = await send(t, key, 'POST', '/v1/nature/subjects', validSubject('emp-taken'), 'taken');
    expectProblem(refused, 409, 'subject_exists');
    const again = await send(t, key, 'POST', '/v1/nature/subjects', validSubject('emp-taken'), 'taken');
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toBe(refused.body);
    expect(again.headers['request-id']).toBe(refused.headers['request-id']);
  });

  it('keeps keys per environment: the same key in production is a new request', async () => {
    const t = await open();
    const test = (await t.mint('test', 'sk')).raw;
    const live = (await t.mint('live', 'sk')).raw;
    const inSandbox = await send(t, test, 'POST', '/v1/nature/subjects', validSubject('emp-both'), 'shared');
    const inProduction = await send(t, live, 'POST', '/v1/nature/subjects', validSubject('emp-both'), 'shared');
    expect(inProduction.statusCode).toBe(201);
    expect(inProduction.headers['idempotent-replayed']).toBeUndefined();
    expect(inProduction.json().id).not.toBe(inSandbox.json().id);
    expect(inProduction.json().livemode).toBe(true);
  });

  it("keeps keys per API key: another key's request runs as its own, never answered what the first key was", async () => {
    const t = await open();
    const first = (await t.mint('test', 'sk')).raw;
    const other = (await t.mint('test', 'sk')).raw;
    const third = (await t.mint('test', 'sk')).raw;
    const subject = validSubject('emp-per-key');
    const created = await send(t, first, 'POST', '/v1/nature/subjects', subject, 'shared-create');
    expect(created.statusCode).toBe(201);
    // The same Idempotency-Key and body from another key: run as if the key were new, so it meets the subject the first made.
    const again = await send(t, other, 'POST', '/v1/nature/subjects', subject, 'shared-create');
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expectProblem(again, 409, 'subject_exists');
    // Nor is it another request's key to a third key: a different body runs too.
    const own = await send(t, third, 'POST', '/v1/nature/subjects', validSubject('emp-own'), 'shared-create');
    expect(own.statusCode).toBe(201);
    expect(own.json().external_subject_id).toBe('emp-own');

    const start = `/v1/nature/subjects/${created.json().id}/assessments`;
    const started = await send(t, first, 'POST', start, undefined, 'shared-start');
    expect(started.json().client_secret).toEqual(expect.any(String));
    const taken = await send(t, other, 'POST', start, undefined, 'shared-start');
    expect(taken.headers['idempotent-replayed']).toBeUndefined();
    expectProblem(taken, 409, 'assessment_in_progress');
    expect(taken.body).not.toContain(started.json().client_secret);
    // The first key still gets its own answer back.
    expect((await send(t, first, 'POST', start, undefined, 'shared-start')).body).toBe(started.body);
  });

  it('still replays an answer stored before answers were kept per API key, to the same request', async () => {
    const t = await open();
    const key = (await t.mint('test', 'sk')).raw;
    const subject = validSubject('emp-unscoped');
    const created = await send(t, key, 'POST', '/v1/nature/subjects', subject);
    // As the previous version stored it: under the Idempotency-Key alone, naming no API key.
    const held = await t.envs.test.idempotency.claim({
      key: 'unscoped',
      fingerprint: fingerprintOf('POST', '/v1/nature/subjects', subject),
      now: new Date(),
      leaseMs: 30_000,
      ttlMs: 86_400_000,
    });
    if (held.outcome !== 'claimed') throw new Error(`expected a new key, found ${held.outcome}`);
    // Sealed under the subject's data key, bound to the key it was stored under, as every answer naming a subject is.
    const subjectId = created.json().id as string;
    const envelope = seal(await t.envs.test.dataKeys.keyFor(subjectId), created.body, subjectId, 'idempotency:unscoped');
    const stored = {
      status: 201,
      headers: { 'content-type': created.headers['content-type'] },
      sealed: { subject_id: subjectId, envelope },
    };
    await t.envs.test.idempotency.complete('unscoped', held.holder, JSON.stringify(stored));
    const replayed = await send(t, key, 'POST', '/v1/nature/subjects', subject, 'unscoped');
    expect(replayed.statusCode).toBe(201);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toBe(created.body);
  });

  it('replays across a restart, and forgets a key after 24 hours', async () => {
    const first = await open();
    const key = (await first.mint('test', 'sk')).raw;
    const subject = validSubject('emp-restart');
    const created = await send(first, key, 'POST', '/v1/nature/subjects', subject, 'restart');
    await first.stop();
    const second = await open({ NATURE_DATA_DIR: first.dataDir });
    const replayed = await send(second, key, 'POST', '/v1/nature/subjects', subject, 'restart');
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body).toBe(created.body);
    second.advance(24 * 3_600_000);
    // A day later the key is new: the request runs again (and meets the subject it made).
    expectProblem(await send(second, key, 'POST', '/v1/nature/subjects', subject, 'restart'), 409, 'subject_exists');
  });

  it("seals a stored answer under its subject's key: after an erasure the replay is 410 and no file holds it", async () => {
    const t = await open();
    const key = (await t.mint('test', 'sk')).raw;
    const marker = 'IDEMPOTENT-MARKER-7f3a';
    const subject = { ...validSubject(`emp-${marker}`), metadata: { note: marker } };
    const created = await send(t, key, 'POST', '/v1/nature/subjects', subject, 'sealed');
    const id = created.json().id as string;
    expect((await t.app.inject({ method: 'DELETE', url: `/v1/nature/subjects/${id}`, headers: auth(key) })).statusCode).toBe(200);
    const replay = expectProblem(await send(t, key, 'POST', '/v1/nature/subjects', subject, 'sealed'), 410, 'subject_erased');
    expect(replay.subject_id).toBe(id);
    await t.stop();
    expect(filesContaining(t.dataDir, [marker])).toEqual([]);
  });

  describe('after a crash that cut a request off once its write was committed (its answer never stored)', () => {
    /** What the key store holds after such a crash: the key claimed by a process that is gone, no answer. */
    function cutOff(t: TestApp, idempotencyKey: string) {
      const db = new Database(join(t.dataDir, 'sandbox.idempotency.db'));
      // Stored in its API key's scope: `<key id> <Idempotency-Key>`.
      const changed = db
        .prepare("UPDATE idempotency_keys SET response = NULL, holder = '2147483646:gone:claim', locked_until = ? WHERE key LIKE ?")
        .run(Date.now() + 3_600_000, `% ${idempotencyKey}`).changes;
      db.close();
      expect(changed).toBe(1);
    }
    /** Sends the request, cuts it off as a crash would, and retries it with the same key. */
    async function retriedAfterCrash(
      t: TestApp,
      key: string,
      method: 'POST' | 'PATCH',
      url: string,
      payload: unknown,
      idempotencyKey: string,
    ) {
      const first = await send(t, key, method, url, payload, idempotencyKey);
      expect(first.statusCode).toBeLessThan(300);
      cutOff(t, idempotencyKey);
      const retry = await send(t, key, method, url, payload, idempotencyKey);
      // Drawn from the log, not replayed from the key store; and nothing written again.
      expect(retry.headers['idempotent-replayed']).toBeUndefined();
      const log = await t.envs.test.events.readAll({ limit: 1_000_000 });
      expect(log.filter((event) => event.metadata.request_id === retry.headers['request-id'])).toEqual([]);
      return { first, retry };
    }

    it('answers each kind of write as first decided, at once, writing nothing again', async () => {
      const t = await open();
      const key = (await t.mint('test', 'sk')).raw;
      const subject = await retriedAfterCrash(t, key, 'POST', '/v1/nature/subjects', validSubject('emp-cut'), 'cut-subject');
      expect(subject.retry.statusCode).toBe(201);
      expect(subject.retry.json()).toEqual(subject.first.json());
      const subjectId = subject.first.json().id as string;

      const started = await retriedAfterCrash(
        t,
        key,
        'POST',
        `/v1/nature/subjects/${subjectId}/assessments`,
        { language: 'en' },
        'cut-start',
      );
      expect(started.retry.statusCode).toBe(201);
      // The same assessment and the same client secret: the log keeps only its hash.
      expect(started.retry.json()).toEqual(started.first.json());
      const assessmentId = started.first.json().id as string;
      const assessmentUrl = `/v1/nature/subjects/${subjectId}/assessments/${assessmentId}`;

      const part = await retriedAfterCrash(t, key, 'PATCH', assessmentUrl, { responses: knownResponses.slice(0, 30) }, 'cut-batch-1');
      expect(part.retry.json()).toEqual(part.first.json());
      // A later batch changes the assessment; a retry of the first still answers it as that batch left it.
      const last = await retriedAfterCrash(t, key, 'PATCH', assessmentUrl, { responses: knownResponses.slice(30) }, 'cut-batch-2');
      expect(last.first.json().status).toBe('scoring');
      expect(last.retry.json()).toEqual(last.first.json());
      cutOff(t, 'cut-batch-1');
      expect((await send(t, key, 'PATCH', assessmentUrl, { responses: knownResponses.slice(0, 30) }, 'cut-batch-1')).json()).toEqual(
        part.first.json(),
      );

      const endpoint = await retriedAfterCrash(
        t,
        key,
        'POST',
        '/v1/nature/webhook_endpoints',
        { url: 'http://127.0.0.1:9/hooks' },
        'cut-endpoint',
      );
      expect(endpoint.retry.statusCode).toBe(201);
      expect(endpoint.retry.json()).toEqual(endpoint.first.json());
      const endpointUrl = `/v1/nature/webhook_endpoints/${endpoint.first.json().id as string}`;
      const list = await t.app.inject({ url: '/v1/nature/webhook_endpoints', headers: auth(key) });
      expect(list.json().data).toHaveLength(1);

      const updated = await retriedAfterCrash(t, key, 'PATCH', endpointUrl, { description: 'described' }, 'cut-update');
      expect(updated.retry.json()).toEqual(updated.first.json());
      const rotated = await retriedAfterCrash(t, key, 'POST', `${endpointUrl}/rotate_secret`, { expire_previous_in: 60 }, 'cut-rotate');
      expect(rotated.retry.json()).toEqual(rotated.first.json());
    });

    it('answers 410 to a retry of a create whose subject was erased since, as the stored answer would', async () => {
      const t = await open();
      const key = (await t.mint('test', 'sk')).raw;
      const created = await send(t, key, 'POST', '/v1/nature/subjects', validSubject('emp-cut-erased'), 'cut-erased');
      const id = created.json().id as string;
      cutOff(t, 'cut-erased');
      expect((await t.app.inject({ method: 'DELETE', url: `/v1/nature/subjects/${id}`, headers: auth(key) })).statusCode).toBe(200);
      const retry = expectProblem(
        await send(t, key, 'POST', '/v1/nature/subjects', validSubject('emp-cut-erased'), 'cut-erased'),
        410,
        'subject_erased',
      );
      expect(retry.subject_id).toBe(id);
    });

    it('runs a retry again once the key is older than 24 hours, as a new request', async () => {
      const t = await open();
      const key = (await t.mint('test', 'sk')).raw;
      await send(t, key, 'POST', '/v1/nature/subjects', validSubject('emp-cut-late'), 'cut-late');
      cutOff(t, 'cut-late');
      t.advance(24 * 3_600_000);
      expectProblem(await send(t, key, 'POST', '/v1/nature/subjects', validSubject('emp-cut-late'), 'cut-late'), 409, 'subject_exists');
    });
  });

  it('refuses a malformed Idempotency-Key with 422, naming the header', async () => {
    const t = await open();
    const key = (await t.mint('test', 'sk')).raw;
    for (const bad of ['', 'x'.repeat(256), 'has space', 'é']) {
      const body = expectProblem(await send(t, key, 'POST', '/v1/nature/subjects', validSubject(), bad), 422, 'validation_failed');
      expect(body.errors).toEqual([{ path: '/idempotency-key', in: 'header', message: expect.any(String) }]);
    }
    expect(await logLength(t.envs, 'test')).toBe(0);
  });
});
