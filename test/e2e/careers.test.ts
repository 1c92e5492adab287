import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNatureClient, isNatureApiError } from '../../packages/client/src/index.js';
import { indexCatalogue } from '../../src/careers/careers-index.js';
import { careersMapV1 } from '../../src/careers/careers-map-v1.js';
import { intelligences, natures } from '../../src/scoring/constructs.js';
import { type Body, client } from '../support/api-client.js';
import { profileOf, smallCatalogue } from '../support/careers-fixture.js';
import { decodeHtml } from '../support/html-text.js';
import { injectFetch } from '../support/inject-fetch.js';
import { expectProblem } from '../support/problems.js';
import { auth, openTestApp, type TestApp } from '../support/test-app.js';

const VERSION = 'onet-27.0/careers-map-v1';
const nurseLike = profileOf(0.2, { healing: 0.95, interpersonal: 0.9 });

describe('the careers routes, with a catalogue', () => {
  let t: TestApp;
  let key: string;
  const get = (url: string, raw = key) => t.app.inject({ url, headers: auth(raw) });
  const match = (payload: object, raw = key) => t.app.inject({ method: 'POST', url: '/v1/careers/matches', headers: auth(raw), payload });

  beforeAll(async () => {
    const index = indexCatalogue(smallCatalogue());
    t = await openTestApp({}, { careers: { current: () => index } });
    key = (await t.mint('test', 'sk', ['careers:read', 'nature:read', 'nature:write'])).raw;
  });
  afterAll(() => t.close());

  it('finds careers by words of their titles, with the catalogue version and no livemode', async () => {
    const response = await get('/v1/careers?query=nurse');
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ object: 'list', has_more: false, catalogue_version: VERSION });
    expect(body.data.map((career: Body) => career.id).sort()).toEqual(['car_nurse_er', 'car_rn']);
    const nurse = body.data.find((career: Body) => career.id === 'car_rn');
    expect(nurse).toEqual({
      id: 'car_rn',
      object: 'career',
      title: 'Registered Nurses',
      title_kind: 'occupation',
      occupation: {
        code: '29-1141.00',
        title: 'Registered Nurses',
        description: expect.any(String),
        job_zone: 3,
        riasec: 'SIC',
        related: ['33-2011.00'],
      },
      profile: { natures: expect.any(Object), intelligences: expect.any(Object) },
    });
    expect(Object.keys(nurse.profile.natures)).toEqual([...natures]);
    expect(Object.keys(nurse.profile.intelligences)).toEqual([...intelligences]);
    const none = await get('/v1/careers?query=zzyzx');
    expect(none.json()).toEqual({ object: 'list', data: [], has_more: false, catalogue_version: VERSION });
  });

  it('filters by job zones (comma-separated) and occupation code', async () => {
    const zones = (await get('/v1/careers?job_zone=2,4&limit=100')).json();
    expect(new Set(zones.data.map((career: Body) => career.occupation.job_zone))).toEqual(new Set([2, 4]));
    const one = (await get('/v1/careers?occupation_code=27-2042.00')).json();
    expect(one.data.map((career: Body) => career.id).sort()).toEqual(['car_chanteuse', 'car_musician']);
  });

  it('walks every career with a cursor, each once, and back', async () => {
    const seen: string[] = [];
    let page = (await get('/v1/careers?limit=4')).json();
    seen.push(...page.data.map((career: Body) => career.id));
    while (page.has_more) {
      page = (await get(`/v1/careers?limit=4&starting_after=${seen.at(-1)}`)).json();
      seen.push(...page.data.map((career: Body) => career.id));
    }
    expect(seen.sort()).toEqual(
      smallCatalogue()
        .careers.map((career) => career.id)
        .sort(),
    );
    const before = (await get(`/v1/careers?limit=4&ending_before=${page.data[0].id}`)).json();
    expect(before.data).toHaveLength(4);
    expectProblem(await get('/v1/careers?starting_after=car_nowhere'), 400, 'invalid_cursor');
  });

  it('pages a search with a cursor, and refuses a career that is not among its results', async () => {
    const all = (await get('/v1/careers?query=nurse&limit=100')).json().data.map((career: Body) => career.id);
    expect(all.length).toBeGreaterThan(1);
    const first = (await get('/v1/careers?query=nurse&limit=1')).json();
    expect(first).toMatchObject({ has_more: true, data: [{ id: all[0] }] });
    const rest = (await get(`/v1/careers?query=nurse&limit=100&starting_after=${all[0]}`)).json();
    expect(rest).toMatchObject({ has_more: false });
    expect(rest.data.map((career: Body) => career.id)).toEqual(all.slice(1));
    const back = (await get(`/v1/careers?query=nurse&limit=100&ending_before=${all.at(-1)}`)).json();
    expect(back.data.map((career: Body) => career.id)).toEqual(all.slice(0, -1));
    // A career of the catalogue, but not one this search found.
    expectProblem(await get('/v1/careers?query=nurse&starting_after=car_musician'), 400, 'invalid_cursor');
    expectProblem(await get('/v1/careers?occupation_code=27-2042.00&ending_before=car_rn'), 400, 'invalid_cursor');
  });

  it('answers a career by id with its occupation and profile, and null for an unprofiled one', async () => {
    const response = await get('/v1/careers/car_nurse_er');
    expect(response.json()).toMatchObject({ id: 'car_nurse_er', title_kind: 'alternate', catalogue_version: VERSION });
    expect(response.json().occupation.code).toBe('29-1141.00');
    expect((await get('/v1/careers/car_mover')).json()).toMatchObject({ profile: null, occupation: { job_zone: null, riasec: '' } });
    expectProblem(await get('/v1/careers/car_nowhere'), 404, 'career_not_found');
  });

  it.each([
    ['job_zone=6', '/job_zone'],
    ['job_zone=3,', '/job_zone'],
    ['occupation_code=nurse', '/occupation_code'],
    ['limit=0', '/limit'],
    ['jobzone=3', '/jobzone'],
  ])('refuses the query %s with 422 naming it', async (query, path) => {
    const body = expectProblem(await get(`/v1/careers?${query}`), 422, 'validation_failed');
    expect(body.errors.map((error: Body) => error.path)).toContain(path);
  });

  it('matches an inline profile: ordered by fit, titles, explanation, version', async () => {
    const response = await match({ profile: nurseLike, limit: 3 });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ object: 'list', has_more: false, catalogue_version: VERSION, profile_id: null });
    expect(body.data).toHaveLength(3);
    const [first] = body.data;
    expect(first).toMatchObject({ object: 'career_match', occupation: { code: '29-1141.00' } });
    expect(first.titles).toEqual([
      { id: 'car_rn', title: 'Registered Nurses', title_kind: 'occupation' },
      { id: 'car_nurse_er', title: 'Emergency Room Nurse', title_kind: 'alternate' },
    ]);
    expect(Object.keys(first.explanation.natures)).toEqual([...natures]);
    expect(first.explanation.natures.healing).toMatchObject({ person: 0.95, demand: 0.95 });
    const fits = body.data.map((entry: Body) => entry.fit);
    expect(fits).toEqual([...fits].sort((a, b) => b - a));
    for (const fit of fits) expect(fit >= 0 && fit <= 1).toBe(true);
    expect(body.data.map((entry: Body) => entry.occupation.code)).not.toContain('53-7199.00');
  });

  it('filters matches by job zone and limits them', async () => {
    const body = (await match({ profile: nurseLike, job_zone: [2], limit: 100 })).json();
    expect(body.data.map((entry: Body) => entry.occupation.code)).toEqual(['33-2011.00']);
    expect((await match({ profile: nurseLike })).json().data).toHaveLength(4);
  });

  it.each([
    [{}, ''],
    [{ profile: nurseLike, profile_id: 'prf_x' }, '/profile'],
    [{ profile: { natures: nurseLike.natures } }, '/profile/intelligences'],
    [{ profile: { ...nurseLike, natures: { ...nurseLike.natures, healing: 1.5 } } }, '/profile/natures/healing'],
    [{ profile: { ...nurseLike, natures: { ...nurseLike.natures, kindness: 0.5 } } }, '/profile/natures/kindness'],
    [{ profile: nurseLike, limit: 101 }, '/limit'],
    [{ profile: nurseLike, job_zone: [0] }, '/job_zone/0'],
    [{ profile: nurseLike, job_zone: 3 }, '/job_zone'],
  ])('refuses the match body %j with 422 naming %s', async (payload, path) => {
    const body = expectProblem(await match(payload), 422, 'validation_failed');
    expect(body.errors.map((error: Body) => error.path)).toContain(path);
  });

  it("matches a stored profile of the key's environment, read as the profile route reads it", async () => {
    const api = client(t, key);
    const { subjectId } = await api.completeAssessment();
    const profile = await api.profileOf(subjectId);
    const body = (await match({ profile_id: profile.id })).json();
    expect(body.profile_id).toBe(profile.id);
    expect(body.data[0].explanation.natures.healing.person).toBe(profile.natures.healing);

    const careersOnly = (await t.mint('test', 'sk', ['careers:read'])).raw;
    expect(expectProblem(await match({ profile_id: profile.id }, careersOnly), 403, 'insufficient_scope').required_scope).toBe(
      'nature:read',
    );
    expect((await match({ profile: nurseLike }, careersOnly)).statusCode).toBe(200);

    const live = (await t.mint('live', 'sk', ['careers:read', 'nature:read'])).raw;
    expectProblem(await match({ profile_id: profile.id }, live), 404, 'profile_not_found');
    expectProblem(await match({ profile_id: 'prf_nowhere' }), 404, 'profile_not_found');

    expect((await api.call('DELETE', `/v1/nature/subjects/${subjectId}`)).status).toBe(200);
    expect(expectProblem(await match({ profile_id: profile.id }), 410, 'subject_erased').subject_id).toBe(subjectId);
  });

  it('is what the typed client searches, gets and matches, its errors typed', async () => {
    const inProcess = injectFetch(t.app);
    const nature = createNatureClient({ apiKey: key, baseUrl: 'http://127.0.0.1', fetch: (request: Request) => inProcess(request) });
    const titles: string[] = [];
    for await (const career of nature.careers.search({ query: 'nurse', limit: 1 })) titles.push(career.title);
    expect(titles.sort()).toEqual(['Emergency Room Nurse', 'Registered Nurses']);
    expect((await nature.careers.get('car_rn')).occupation.riasec).toBe('SIC');
    const matches = await nature.careers.match({ profile: nurseLike, job_zone: [3], limit: 1 });
    expect(matches.data.map((match) => match.occupation.code)).toEqual(['29-1141.00']);
    const refused = await nature.careers.get('car_nowhere').catch((error: unknown) => error);
    expect(isNatureApiError(refused, 'career_not_found')).toBe(true);
  });

  it('refuses keys without careers:read, publishable keys and no key', async () => {
    const natureOnly = (await t.mint('test', 'sk', ['nature:read', 'nature:write'])).raw;
    for (const response of [await get('/v1/careers', natureOnly), await match({ profile: nurseLike }, natureOnly)]) {
      expect(expectProblem(response, 403, 'insufficient_scope').required_scope).toBe('careers:read');
    }
    const pk = (await t.mint('test', 'pk', ['nature:read'])).raw;
    expectProblem(await get('/v1/careers/car_rn', pk), 403, 'insufficient_scope');
    expectProblem(await t.app.inject({ url: '/v1/careers' }), 401, 'unauthenticated');
  });
});

describe('the careers guide', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp();
  });
  afterAll(() => t.close());

  it("serves /docs/careers with O*NET's attribution, its licence link and every row of the mapping table", async () => {
    const response = await t.app.inject({ url: '/docs/careers' });
    expect(response.statusCode).toBe(200);
    const text = decodeHtml(response.body.replace(/<[^>]+>/g, ''));
    expect(text).toMatch(
      /includes information from the O\*NET Database by the U\.S\. Department of Labor,\s+Employment and Training Administration \(USDOL\/ETA\), used under the\s+CC BY 4\.0 license/,
    );
    expect(response.body).toContain('href="https://www.onetcenter.org/license_db.html"');
    for (const row of careersMapV1) {
      expect(text).toContain(row.standIn);
      for (const term of row.terms) expect(text).toContain(term.reason);
    }
    expect(text).not.toContain('{{');
  });
});

describe('the careers routes, before any import', () => {
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await openTestApp();
    key = (await t.mint('test', 'sk', ['careers:read', 'nature:read'])).raw;
  });
  afterAll(() => t.close());

  it.each([
    ['GET', '/v1/careers?query=nurse', undefined],
    ['GET', '/v1/careers?job_zone=9', undefined],
    ['GET', '/v1/careers/car_rn', undefined],
    ['POST', '/v1/careers/matches', { profile: nurseLike }],
    ['POST', '/v1/careers/matches', { nothing: true }],
  ] as const)('answers %s %s with 503 careers_catalogue_missing naming the command', async (method, url, payload) => {
    const response = await t.app.inject({ method, url, headers: auth(key), ...(payload !== undefined && { payload }) });
    expect(expectProblem(response, 503, 'careers_catalogue_missing').detail).toContain('nature careers import PATH');
    expect(response.headers['retry-after']).toBeUndefined();
  });

  it('still checks the key first', async () => {
    expectProblem(await t.app.inject({ url: '/v1/careers' }), 401, 'unauthenticated');
  });
});
