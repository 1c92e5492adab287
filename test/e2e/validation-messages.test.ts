import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../support/problems.js';
import { auth, openTestApp, type TestApp, validSubject } from '../support/test-app.js';

let t: TestApp;
let key: string;
let assessmentUrl: string;
beforeAll(async () => {
  t = await openTestApp();
  key = (await t.mint('test', 'sk')).raw;
  const subject = (await send('POST', '/v1/nature/subjects', validSubject())).json();
  const assessment = (await send('POST', `/v1/nature/subjects/${subject.id}/assessments`, {})).json();
  assessmentUrl = `/v1/nature/subjects/${subject.id}/assessments/${assessment.id}`;
});
afterAll(async () => {
  await t.close();
});

function send(method: 'GET' | 'POST' | 'PATCH', url: string, payload?: unknown, headers: Record<string, string> = {}) {
  return t.app.inject({ method, url, headers: { ...auth(key), ...headers }, ...(payload !== undefined && { payload: payload as object }) });
}

/** The messages of a 422 validation_failed answer, by JSON Pointer. */
async function messages(answer: ReturnType<typeof send>): Promise<Record<string, string>> {
  const body = expectProblem(await answer, 422, 'validation_failed');
  return Object.fromEntries(body.errors.map(({ path, message }: { path: string; message: string }) => [path, message]));
}

const { consent } = validSubject();

describe('validation messages name the field in plain words', () => {
  it('says a missing field is required, and a missing body too', async () => {
    expect(await messages(send('POST', '/v1/nature/subjects', { metadata: {} }))).toEqual({
      '/external_subject_id': '`external_subject_id` is required.',
      '/consent': '`consent` is required.',
    });
    expect(
      await messages(send('POST', '/v1/nature/subjects', { external_subject_id: 'emp-1', consent: { ...consent, ui_hash: undefined } })),
    ).toEqual({
      '/consent/ui_hash': '`consent.ui_hash` is required.',
    });
    expect(await messages(send('POST', '/v1/nature/subjects'))).toEqual({ '': 'The request body is required: send a JSON object.' });
  });

  it('says what type a field must have and what it got instead', async () => {
    expect(
      await messages(send('POST', '/v1/nature/subjects', { external_subject_id: 42, consent: { ...consent, granted_at: true } })),
    ).toEqual({
      '/external_subject_id': '`external_subject_id` must be a string, not a number.',
      '/consent/granted_at': '`consent.granted_at` must be a string, not true.',
    });
    expect(await messages(send('POST', '/v1/nature/subjects', { external_subject_id: 'emp-1', consent: null }))).toEqual({
      '/consent': '`consent` must be an object, not null.',
    });
    expect(await messages(send('POST', '/v1/nature/subjects', [validSubject()]))).toEqual({
      '': 'The request body must be an object, not an array.',
    });
    expect(await messages(send('PATCH', assessmentUrl, { responses: [{ item_id: 'mn_001', value: '3' }] }))).toEqual({
      '/responses/0/value': '`responses[0].value` must be a number, not a string.',
    });
  });

  it('gives the limits of a number, a list and a text', async () => {
    expect(await messages(send('PATCH', assessmentUrl, { responses: [] }))).toEqual({
      '/responses': '`responses` must have at least 1 item.',
    });
    const tooMany = Array.from({ length: 77 }, (_, index) => ({ item_id: `mn_${String((index % 76) + 1).padStart(3, '0')}`, value: 3 }));
    expect((await messages(send('PATCH', assessmentUrl, { responses: tooMany })))['/responses']).toBe(
      '`responses` must have at most 76 items.',
    );
    expect(
      await messages(
        send('PATCH', assessmentUrl, {
          responses: [
            { item_id: 'mn_001', value: 0 },
            { item_id: 'mn_002', value: 2.5 },
          ],
        }),
      ),
    ).toEqual({
      '/responses/0/value': '`responses[0].value` must be a whole number from 1 to 5.',
      '/responses/1/value': '`responses[1].value` must be a whole number from 1 to 5.',
    });
    const endpoint = (await send('POST', '/v1/nature/webhook_endpoints', { url: 'http://127.0.0.1:9/h' })).json();
    expect(await messages(send('POST', `/v1/nature/webhook_endpoints/${endpoint.id}/rotate_secret`, { expire_previous_in: -1 }))).toEqual({
      '/expire_previous_in': '`expire_previous_in` must be at least 0.',
    });
    expect(
      await messages(send('POST', `/v1/nature/webhook_endpoints/${endpoint.id}/rotate_secret`, { expire_previous_in: 604_801 })),
    ).toEqual({
      '/expire_previous_in': '`expire_previous_in` must be at most 604800.',
    });
    expect(
      await messages(send('POST', '/v1/nature/webhook_endpoints', { url: 'http://127.0.0.1:9/h', description: 'x'.repeat(501) })),
    ).toEqual({
      '/description': '`description` must be at most 500 characters long.',
    });
    expect(await messages(send('GET', '/v1/nature/subjects?limit=101'))).toEqual({
      '/limit': '`limit` must be a whole number from 1 to 100, in decimal digits.',
    });
    expect(await messages(send('GET', '/v1/nature/subjects?ending_before='))).toEqual({
      '/ending_before': '`ending_before` must not be empty.',
    });
  });

  it('lists the values a field may take', async () => {
    const subject = (await send('POST', '/v1/nature/subjects', validSubject())).json();
    expect(await messages(send('POST', `/v1/nature/subjects/${subject.id}/assessments`, { language: 'de' }))).toEqual({
      '/language': '`language` must be one of: en, fr.',
    });
    expect(
      await messages(send('POST', '/v1/nature/webhook_endpoints', { url: 'http://127.0.0.1:9/h', enabled_events: ['nature.everything'] })),
    ).toEqual({
      '/enabled_events/0':
        '`enabled_events[0]` must be one of: nature.assessment.completed, nature.profile.updated, situational.assessment.completed, ' +
        'nature.subject.created, nature.assessment.started, nature.assessment.abandoned, nature.assessment.expired, nature.subject.erased.',
    });
  });

  it("keeps a schema's own words, after the field's name", async () => {
    expect(
      await messages(send('POST', '/v1/nature/subjects', { external_subject_id: '', consent: { ...consent, ui_hash: 'sha256:00' } })),
    ).toEqual({
      '/external_subject_id': '`external_subject_id` must be 1 to 255 characters long.',
      '/consent/ui_hash': '`consent.ui_hash` must be "sha256:" followed by 64 lowercase hex digits.',
    });
    expect(
      await messages(
        send('PATCH', assessmentUrl, {
          responses: [
            { item_id: 'mn_999', value: 1 },
            { item_id: 'mn_001', value: 1 },
            { item_id: 'mn_001', value: 2 },
          ],
        }),
      ),
    ).toEqual({
      '/responses/0/item_id': '`responses[0].item_id` is not an item id; GET /v1/nature/items lists them.',
      '/responses/2/item_id': '`responses[2].item_id` names an item answered earlier in this batch.',
    });
    expect(
      await messages(send('POST', '/v1/nature/subjects', { ...validSubject(), metadata: { role: 7, 'x/y': 'a'.repeat(501) } })),
    ).toEqual({
      '/metadata/role': '`metadata.role` must be a string.',
      '/metadata/x~1y': '`metadata["x/y"]` must be at most 500 characters long.',
    });
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, index) => [`k${index}`, 'v']));
    expect(await messages(send('POST', '/v1/nature/subjects', { ...validSubject(), metadata: many }))).toEqual({
      '/metadata': '`metadata` must have at most 50 keys; it has 51.',
    });
    expect(await messages(send('POST', '/v1/nature/subjects', { ...validSubject(), metadata: 'cohort' }))).toEqual({
      '/metadata': '`metadata` must be an object of string values.',
    });
  });

  it('refuses ids, labels and metadata names that would not show as themselves on one line, storing nothing', async () => {
    // A bidi override, the line and paragraph separators, a zero-width space and the Hangul filler: none is a control
    // character, each would reorder, split or hide what an operator reads where the value is listed.
    for (const [character, code] of [
      ['\u202E', 'U+202E'],
      ['\u2028', 'U+2028'],
      ['\u2029', 'U+2029'],
      ['\u200B', 'U+200B'],
      ['\u3164', 'U+3164'],
    ]) {
      expect(
        await messages(
          send('POST', '/v1/nature/subjects', {
            external_subject_id: `emp${character}42`,
            consent: { ...consent, text_version: `v3${character}` },
            metadata: { [`role${character}`]: 'kept as typed: a value may hold any printable text' },
          }),
        ),
      ).toEqual({
        '/external_subject_id': `\`external_subject_id\` must be printable on one line; ${code} is a format, separator or invisible character.`,
        '/consent/text_version': `\`consent.text_version\` must be printable on one line; ${code} is a format, separator or invisible character.`,
        // Named as any other key is: with a dot when the name reads as an identifier (U+3164 does), else in brackets.
        [`/metadata/role${character}`]: expect.stringContaining(
          `must have a name printable on one line; ${code} is a format, separator or invisible character.`,
        ),
      });
      const listed = (await send('GET', `/v1/nature/subjects?external_subject_id=${encodeURIComponent(`emp${character}42`)}`)).json();
      expect(listed.data).toEqual([]);
    }
    // Accents, other scripts and emoji are printable.
    expect((await send('POST', '/v1/nature/subjects', { ...validSubject(), external_subject_id: 'Zoë-北京-🙂' })).statusCode).toBe(201);
  });

  it('names unknown fields, query parameters given twice and a malformed header', async () => {
    expect(
      await messages(send('POST', '/v1/nature/subjects', { ...validSubject(), consent: { ...consent, signed: true }, zzz: 1 })),
    ).toEqual({
      '/consent/signed': 'Unknown field `consent.signed`.',
      '/zzz': 'Unknown field `zzz`.',
    });
    expect(await messages(send('GET', '/v1/nature/subjects?limit=1&limit=2'))).toEqual({
      '/limit': '`limit` is given 2 times; give it once.',
    });
    expect(await messages(send('GET', '/v1/nature/subjects?external_subject_id=%FF'))).toEqual({
      '/external_subject_id': '`external_subject_id` is not valid percent-encoded UTF-8.',
    });
    const answer = send('POST', '/v1/nature/subjects', validSubject(), { 'idempotency-key': 'not ascii é' });
    expect((await answer).json().errors).toEqual([
      { path: '/idempotency-key', in: 'header', message: '`Idempotency-Key` must be 1 to 255 visible ASCII characters, such as a UUID.' },
    ]);
  });
});

describe('an unknown field close to a known one: did you mean', () => {
  it('suggests the known field of the same object, in the body', async () => {
    const { external_subject_id, metadata } = validSubject();
    expect(await messages(send('POST', '/v1/nature/subjects', { external_subject_id, metdata: metadata, consnet: consent }))).toEqual({
      '/metdata': 'Unknown field `metdata`: did you mean `metadata`?',
      '/consnet': 'Unknown field `consnet`: did you mean `consent`?',
      '/consent': '`consent` is required.',
    });
    const { ui_hash, ...rest } = consent;
    expect(await messages(send('POST', '/v1/nature/subjects', { ...validSubject(), consent: { ...rest, ui_hsah: ui_hash } }))).toEqual({
      '/consent/ui_hash': '`consent.ui_hash` is required.',
      '/consent/ui_hsah': 'Unknown field `consent.ui_hsah`: did you mean `consent.ui_hash`?',
    });
    expect(await messages(send('POST', '/v1/nature/subjects', { ...validSubject(), External_Subject_ID: 'emp-1' }))).toEqual({
      '/External_Subject_ID': 'Unknown field `External_Subject_ID`: did you mean `external_subject_id`?',
    });
  });

  it('suggests the known query parameter of the route', async () => {
    expect(await messages(send('GET', '/v1/nature/subjects?limt=5'))).toEqual({
      '/limt': 'Unknown query parameter `limt`: did you mean `limit`?',
    });
    expect(await messages(send('GET', '/v1/nature/subjects?startingafter=sub_x'))).toEqual({
      '/startingafter': 'Unknown query parameter `startingafter`: did you mean `starting_after`?',
    });
    expect(await messages(send('GET', '/v1/nature/usage?granularty=month'))).toEqual({
      '/granularty': 'Unknown query parameter `granularty`: did you mean `granularity`?',
    });
  });

  it('suggests nothing when no known field is that close, or the route takes none', async () => {
    expect(await messages(send('GET', '/v1/nature/subjects?cursor=sub_x&lim=5'))).toEqual({
      '/cursor': 'Unknown query parameter `cursor`.',
      '/lim': 'Unknown query parameter `lim`.',
    });
    expect(await messages(send('GET', '/v1/nature/items?limit=5'))).toEqual({ '/limit': 'Unknown query parameter `limit`.' });
  });
});
