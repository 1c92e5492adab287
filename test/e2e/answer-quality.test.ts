import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Body, client } from '../support/api-client.js';
import { knownResponses } from '../support/known-answers.js';
import { openTestApp, type TestApp, validSubject } from '../support/test-app.js';

// ajv-formats is CommonJS: its default export arrives wrapped under ESM.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

describe('per-item timing and the quality of a profile', () => {
  let t: TestApp;
  let api: ReturnType<typeof client>;
  let validProfile: (body: unknown) => boolean;
  let errorsOf: () => unknown;
  beforeAll(async () => {
    t = await openTestApp();
    api = client(t, (await t.mint('test', 'sk')).raw);
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addSchema(doc, 'doc');
    const validate = ajv.compile({ $ref: 'doc#/components/schemas/Profile' });
    validProfile = (body) => validate(body) as boolean;
    errorsOf = () => validate.errors;
  });
  afterAll(() => t.close());

  async function started() {
    const subject = (await api.call('POST', '/v1/nature/subjects', validSubject())).body;
    const assessment = (await api.call('POST', `/v1/nature/subjects/${subject.id}/assessments`)).body;
    return { url: `/v1/nature/subjects/${subject.id}/assessments/${assessment.id}`, subjectId: subject.id as string, assessment };
  }

  it.each([
    [{ answered_at: 'yesterday' }, '/responses/1/answered_at', 'RFC 3339'],
    [{ answered_at: '2026-11-24T10:00:00' }, '/responses/1/answered_at', 'RFC 3339'],
    [{ response_time_ms: -1 }, '/responses/1/response_time_ms', '0 to 3600000'],
    [{ response_time_ms: 3_600_001 }, '/responses/1/response_time_ms', '0 to 3600000'],
    [{ response_time_ms: 1.5 }, '/responses/1/response_time_ms', 'whole number'],
  ])('refuses %j with 422 naming the item, storing nothing', async (timing, path, words) => {
    const { url } = await started();
    const response = await api.call('PATCH', url, {
      responses: [
        { item_id: 'mn_001', value: 3 },
        { item_id: 'mn_002', value: 4, ...timing },
      ],
    });
    expect(response.status).toBe(422);
    expect(response.body.code).toBe('validation_failed');
    expect(response.body.errors).toEqual([expect.objectContaining({ path, in: 'body', message: expect.stringContaining(words) })]);
    expect((await api.call('GET', url)).body.responses_received).toBe(0);
  });

  it('refuses an answered_at before the assessment started, or in the future (beyond 120 s of skew), naming the item', async () => {
    const { url, assessment } = await started();
    const before = new Date(Date.parse(assessment.created_at) - 121_000).toISOString();
    const future = new Date(Date.now() + 10 * 60 * 1000).toISOString();
    const response = await api.call('PATCH', url, {
      responses: [
        { item_id: 'mn_001', value: 3, answered_at: before },
        { item_id: 'mn_002', value: 3, answered_at: new Date().toISOString() },
        { item_id: 'mn_003', value: 3, answered_at: future },
      ],
    });
    expect(response.status).toBe(422);
    expect(response.body.errors).toEqual([
      expect.objectContaining({
        path: '/responses/0/answered_at',
        message: expect.stringMatching(/mn_001.*before the assessment started/),
      }),
      expect.objectContaining({ path: '/responses/2/answered_at', message: expect.stringMatching(/mn_003.*in the future/) }),
    ]);
    expect((await api.call('GET', url)).body.responses_received).toBe(0);
  });

  it('gives a profile sent without timing a quality with null timing indicators, valid against the document', async () => {
    const { subjectId } = await api.completeAssessment();
    const profile = await api.profileOf(subjectId);
    expect(profile.quality).toEqual({
      version: 'quality-v2',
      flagged: false,
      reasons: [],
      indicators: {
        longest_identical_run: { value: expect.any(Number), threshold: 15, flagged: false },
        response_variability: { value: expect.any(Number), threshold: 0.35, flagged: false },
        construct_inconsistency: { value: expect.any(Number), threshold: 1.1, flagged: false },
        too_fast_share: { value: null, threshold: 0.2, flagged: false },
        completion_seconds: { value: null, threshold: 120, flagged: false },
      },
    });
    expect(validProfile(profile), JSON.stringify(errorsOf())).toBe(true);
  });

  it('flags a speeder (200 ms an item) by timing, leaves the scores as without timing, and the profile is valid', async () => {
    const { url, subjectId, assessment } = await started();
    const start = Date.parse(assessment.created_at);
    const timed = knownResponses.map((response, index) => ({
      ...response,
      answered_at: new Date(start + (index + 1) * 200).toISOString(),
      response_time_ms: 200,
    }));
    for (let batch = 0; batch < 4; batch++)
      expect((await api.call('PATCH', url, { responses: timed.slice(batch * 19, (batch + 1) * 19) })).status).toBe(200);
    const profile: Body = await api.profileOf(subjectId);
    expect(profile.quality.reasons).toEqual(['too_fast_share', 'completion_seconds']);
    expect(profile.quality.indicators.too_fast_share.value).toBe(1);
    expect(profile.quality.indicators.completion_seconds.value).toBe(15);
    expect(validProfile(profile), JSON.stringify(errorsOf())).toBe(true);

    const { subjectId: untimed } = await api.completeAssessment();
    const plain = await api.profileOf(untimed);
    expect(profile.natures).toEqual(plain.natures);
    expect(profile.intelligences).toEqual(plain.intelligences);
    expect(profile.descriptions).toEqual(plain.descriptions);
  });

  it('lets a changed answer bring its own timing, and an answer sent again with the same value change nothing', async () => {
    const { url, subjectId, assessment } = await started();
    const start = Date.parse(assessment.created_at);
    const slow = knownResponses.map((response, index) => ({
      ...response,
      answered_at: new Date(start + (index + 1) * 200).toISOString(),
      response_time_ms: 5000,
    }));
    const send = async (responses: unknown[]) => expect((await api.call('PATCH', url, { responses })).status).toBe(200);
    await send(slow.slice(0, 75));
    // The same value again, fast this time: no change, so its timing stays as first sent.
    await send([{ ...slow[0]!, response_time_ms: 10 }]);
    // Another value, fast: the new answer's timing replaces the old.
    await send([{ ...slow[1]!, value: (slow[1]!.value % 5) + 1, response_time_ms: 10 }]);
    await send([slow[75]!]);
    const profile: Body = await api.profileOf(subjectId);
    // One fast item of 76 timed ones.
    expect(profile.quality.indicators.too_fast_share.value).toBe(Math.round((1 / 76) * 1000) / 1000);
  });
});
