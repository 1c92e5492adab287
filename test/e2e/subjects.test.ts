import { describe, expect, it } from 'vitest';
import { auth, logLength, type TestApp, useTestApp, validSubject } from '../support/test-app.js';

describe('subjects', () => {
  let t: TestApp;
  let key: string;
  useTestApp((app, sk) => {
    t = app;
    key = sk;
  });

  const post = (payload: unknown) =>
    t.app.inject({ method: 'POST', url: '/v1/nature/subjects', headers: auth(key), payload: payload as object });
  const get = (url: string) => t.app.inject({ url, headers: auth(key) });

  it('creates a subject: 201 with the contract fields, readable at once by id and in the list', async () => {
    const body = validSubject('emp-0001');
    const response = await post(body);
    expect(response.statusCode).toBe(201);
    const subject = response.json();
    expect(subject).toEqual({
      id: expect.stringMatching(/^sub_[0-9A-Z]{26}$/),
      object: 'subject',
      external_subject_id: 'emp-0001',
      metadata: body.metadata,
      consent: body.consent,
      status: 'active',
      livemode: false,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect((await get(`/v1/nature/subjects/${subject.id}`)).json()).toEqual(subject);
    const filtered = (await get('/v1/nature/subjects?external_subject_id=emp-0001')).json();
    expect(filtered).toEqual({ object: 'list', data: [subject], has_more: false });
  });

  it('records creation as SubjectCreated and ConsentRecorded events, personal fields under pii', async () => {
    const subject = (await post(validSubject('emp-events'))).json();
    const { events } = await t.envs.test.events.readStream(`subject-${subject.id}`);
    expect(events.map((e) => e.type)).toEqual(['SubjectCreated', 'ConsentRecorded']);
    expect(events[0]!.data).toMatchObject({ subject_id: subject.id, pii: { external_subject_id: 'emp-events' } });
    expect(events[1]!.data).toMatchObject({ consent: subject.consent });
    expect(events[0]!.metadata).toMatchObject({ request_id: expect.stringMatching(/^req_/), key_id: expect.stringMatching(/^key_/) });
  });

  it('defaults metadata to an empty object', async () => {
    const { metadata: _omitted, ...body } = validSubject();
    const response = await post(body);
    expect(response.statusCode).toBe(201);
    expect(response.json().metadata).toEqual({});
  });

  it('answers 409 subject_exists with the existing id for a second create with the same external_subject_id', async () => {
    const first = (await post(validSubject('emp-dup'))).json();
    const before = await logLength(t.envs, 'test');
    const second = await post({ ...validSubject('emp-dup'), metadata: { other: 'x' } });
    expect(second.statusCode).toBe(409);
    expect(second.json()).toMatchObject({ code: 'subject_exists', subject_id: first.id });
    expect(await logLength(t.envs, 'test')).toBe(before);
  });

  it('answers a burst of creates with one external_subject_id with one 201 and 409s naming the winner', async () => {
    const responses = await Promise.all(Array.from({ length: 6 }, () => post(validSubject('emp-race'))));
    const statuses = responses.map((r) => r.statusCode).sort();
    expect(statuses).toEqual([201, 409, 409, 409, 409, 409]);
    const winner = responses.find((r) => r.statusCode === 201)!.json();
    for (const r of responses.filter((r) => r.statusCode === 409)) expect(r.json().subject_id).toBe(winner.id);
    expect((await get('/v1/nature/subjects?external_subject_id=emp-race')).json().data).toHaveLength(1);
  });

  it('keeps __proto__ and constructor metadata keys as plain data, without prototype pollution', async () => {
    const payload = `{"external_subject_id":"emp-proto","metadata":{"__proto__":"polluted","constructor":"c","cohort":"a"},"consent":${JSON.stringify(validSubject().consent)}}`;
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/nature/subjects',
      headers: { ...auth(key), 'content-type': 'application/json' },
      payload,
    });
    expect(response.statusCode).toBe(201);
    const expected = JSON.parse('{"__proto__":"polluted","constructor":"c","cohort":"a"}');
    expect(JSON.parse(response.body).metadata).toEqual(expected);
    const read = JSON.parse((await get(`/v1/nature/subjects/${response.json().id}`)).body);
    expect(Object.keys(read.metadata)).toEqual(['__proto__', 'constructor', 'cohort']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.prototype.constructor).toBe(Object);
  });

  it('pages newest first with limit, starting_after and ending_before', async () => {
    const own = await t.mint('live', 'sk');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await t.app.inject({
        method: 'POST',
        url: '/v1/nature/subjects',
        headers: auth(own.raw),
        payload: validSubject(`page-${i}`),
      });
      ids.push(r.json().id);
    }
    const list = (query: string) => t.app.inject({ url: `/v1/nature/subjects?${query}`, headers: auth(own.raw) }).then((r) => r.json());
    const newest = [...ids].reverse();
    const first = await list('limit=2');
    expect(first.data.map((s: { id: string }) => s.id)).toEqual(newest.slice(0, 2));
    expect(first.has_more).toBe(true);
    const second = await list(`limit=2&starting_after=${newest[1]}`);
    expect(second.data.map((s: { id: string }) => s.id)).toEqual(newest.slice(2, 4));
    const last = await list(`limit=2&starting_after=${newest[3]}`);
    expect(last).toMatchObject({ has_more: false, data: [{ id: newest[4] }] });
    const back = await list(`limit=2&ending_before=${newest[2]}`);
    expect(back.data.map((s: { id: string }) => s.id)).toEqual(newest.slice(0, 2));
    expect((await list('')).data).toHaveLength(5);
  });

  it.each([
    ['limit=0', 422, 'validation_failed', '/limit'],
    ['limit=101', 422, 'validation_failed', '/limit'],
    ['limit=ten', 422, 'validation_failed', '/limit'],
    ['sort=asc', 422, 'validation_failed', '/sort'],
    ['starting_after=sub_01M000000000000000000000XX', 400, 'invalid_cursor', undefined],
    ['ending_before=nope', 400, 'invalid_cursor', undefined],
  ])('answers a bad list query %s with %i %s', async (query, status, code, path) => {
    const response = await get(`/v1/nature/subjects?${query}`);
    expect(response.statusCode).toBe(status);
    const body = response.json();
    expect(body.code).toBe(code);
    if (path) expect(body.errors).toContainEqual({ path, in: 'query', message: expect.any(String) });
  });

  it('refuses starting_after together with ending_before', async () => {
    const id = (await post(validSubject())).json().id;
    const response = await get(`/v1/nature/subjects?starting_after=${id}&ending_before=${id}`);
    expect(response.statusCode).toBe(422);
    expect(response.json().errors).toContainEqual(expect.objectContaining({ path: '/ending_before', in: 'query' }));
  });

  it('answers 404 not_found for an unknown subject id', async () => {
    const response = await get('/v1/nature/subjects/sub_01M00000000000000000000000');
    expect(response.statusCode).toBe(404);
    expect(response.json().code).toBe('not_found');
  });

  const consent = validSubject().consent;
  const tooManyKeys = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
  const inFuture = new Date(Date.now() + 10 * 60 * 1000).toISOString();
  it.each([
    ['a missing body', undefined, ''],
    ['an array body', [], ''],
    ['a missing external_subject_id', { consent }, '/external_subject_id'],
    ['an empty external_subject_id', { external_subject_id: '', consent }, '/external_subject_id'],
    ['an external_subject_id over 255 characters', { external_subject_id: 'x'.repeat(256), consent }, '/external_subject_id'],
    ['a numeric external_subject_id', { external_subject_id: 42, consent }, '/external_subject_id'],
    ['a missing consent', { external_subject_id: 'e' }, '/consent'],
    ['an unknown top-level field', { ...validSubject(), name: 'Ada' }, '/name'],
    ['an unknown consent field', { ...validSubject(), consent: { ...consent, ip: '1.2.3.4' } }, '/consent/ip'],
    [
      'a text_version over 64 characters',
      { ...validSubject(), consent: { ...consent, text_version: 'v'.repeat(65) } },
      '/consent/text_version',
    ],
    ['a ui_hash without the sha256: prefix', { ...validSubject(), consent: { ...consent, ui_hash: 'ab'.repeat(32) } }, '/consent/ui_hash'],
    [
      'a ui_hash with uppercase hex',
      { ...validSubject(), consent: { ...consent, ui_hash: `sha256:${'AB'.repeat(32)}` } },
      '/consent/ui_hash',
    ],
    [
      'a ui_hash with 63 hex digits',
      { ...validSubject(), consent: { ...consent, ui_hash: `sha256:${'a'.repeat(63)}` } },
      '/consent/ui_hash',
    ],
    ['a granted_at that is not ISO 8601', { ...validSubject(), consent: { ...consent, granted_at: '01/11/2026' } }, '/consent/granted_at'],
    [
      'a granted_at with a non-UTC offset',
      { ...validSubject(), consent: { ...consent, granted_at: '2026-11-01T09:30:00+02:00' } },
      '/consent/granted_at',
    ],
    ['a granted_at 10 minutes in the future', { ...validSubject(), consent: { ...consent, granted_at: inFuture } }, '/consent/granted_at'],
    ['metadata that is an array', { ...validSubject(), metadata: ['a'] }, '/metadata'],
    ['metadata with 51 keys', { ...validSubject(), metadata: tooManyKeys }, '/metadata'],
    ['a metadata key over 40 characters', { ...validSubject(), metadata: { ['k'.repeat(41)]: 'v' } }, `/metadata/${'k'.repeat(41)}`],
    ['a metadata value over 500 characters', { ...validSubject(), metadata: { note: 'v'.repeat(501) } }, '/metadata/note'],
    ['a numeric metadata value', { ...validSubject(), metadata: { hire_date: 2026 } }, '/metadata/hire_date'],
    ['a nested metadata value', { ...validSubject(), metadata: { cohort: { a: 'b' } } }, '/metadata/cohort'],
  ])('answers 422 validation_failed to %s, pointing at the field, and stores nothing', async (_case, payload, path) => {
    const before = await logLength(t.envs, 'test');
    const response = await post(payload);
    expect(response.statusCode).toBe(422);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = response.json();
    expect(body.code).toBe('validation_failed');
    expect(body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect(body.errors.every((e: { in: string }) => e.in === 'body')).toBe(true);
    expect(await logLength(t.envs, 'test')).toBe(before);
  });

  it("bounds granted_at by the app's clock, not the host's", async () => {
    const hour = 3_600_000;
    t.advance(hour);
    try {
      // Ten minutes ahead of the host is fifty minutes ago on the app's clock; ten minutes ahead of the app's is refused.
      const aheadOfHost = new Date(Date.now() + 10 * 60 * 1000).toISOString();
      expect((await post({ ...validSubject('emp-clock'), consent: { ...consent, granted_at: aheadOfHost } })).statusCode).toBe(201);
      const aheadOfApp = new Date(Date.now() + hour + 10 * 60 * 1000).toISOString();
      expect((await post({ ...validSubject('emp-clock-ahead'), consent: { ...consent, granted_at: aheadOfApp } })).statusCode).toBe(422);
    } finally {
      t.advance(-hour);
    }
  });

  it('accepts metadata at its limits: 50 keys of 40 characters with 500-character values', async () => {
    const metadata = Object.fromEntries(
      Array.from({ length: 50 }, (_, i) => [`${String(i).padStart(2, '0')}${'k'.repeat(38)}`, 'v'.repeat(500)]),
    );
    const response = await post({ ...validSubject(), metadata });
    expect(response.statusCode).toBe(201);
    expect(response.json().metadata).toEqual(metadata);
  });
});
