import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rebuildProfiles } from '../../src/commands/rebuild-profiles.js';
import { items } from '../../src/scoring/item-bank.js';
import { describeScores } from '../../src/scoring/scorer.js';
import { type Body, client } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { expectProblem } from '../support/problems.js';
import { seeded } from '../support/seeded.js';
import { openTestApp, type TestApp, validSubject } from '../support/test-app.js';

/** Answer patterns a person might give: the same every run (seeded), from flat to scattered. */
const patterns: { name: string; value: (index: number) => number }[] = [
  { name: 'all 1', value: () => 1 },
  { name: 'all 5', value: () => 5 },
  { name: 'a rising cycle', value: (index) => (index % 5) + 1 },
  { name: 'halves', value: (index) => (index < 38 ? 5 : 2) },
  ...[7, 19, 76, 2026].map((seed) => {
    const random = seeded(seed);
    const values = items.map(() => 1 + Math.floor(random() * 5));
    return { name: `random (seed ${seed})`, value: (index: number) => values[index]! };
  }),
];

describe('assessments in French', () => {
  let t: TestApp;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    t = await openTestApp();
    api = client(t, (await t.mint('test', 'sk')).raw);
  });
  afterAll(() => t.close());

  /** A subject through a whole assessment in a language; its assessment and profile as the API shows them. */
  async function completeIn(language: 'en' | 'fr' | undefined, value: (index: number) => number) {
    const subject = (await api.call('POST', '/v1/nature/subjects', validSubject())).body;
    const started = await api.call(
      'POST',
      `/v1/nature/subjects/${subject.id}/assessments`,
      language === undefined ? undefined : { language },
    );
    expect(started.status).toBe(201);
    const url = `/v1/nature/subjects/${subject.id}/assessments/${started.body.id}`;
    const responses = items.map((item, index) => ({ item_id: item.id, value: value(index) }));
    expect((await api.call('PATCH', url, { responses })).status).toBe(200);
    const profile = await api.profileOf(subject.id);
    return { started: started.body, assessment: (await api.call('GET', url)).body, profile };
  }

  it('serves the item bank in French with ?language=fr: the same 76 ids in the same order, French texts and labels', async () => {
    const english = await api.call('GET', '/v1/nature/items');
    const french = await api.call('GET', '/v1/nature/items?language=fr');
    expect(french.status).toBe(200);
    expect(english.body.language).toBe('en');
    expect(french.body.language).toBe('fr');
    expect(french.body.item_set_version).toBe(english.body.item_set_version);
    expect(french.body.data.map((item: Body) => item.id)).toEqual(english.body.data.map((item: Body) => item.id));
    expect(french.body.data).toHaveLength(76);
    french.body.data.forEach((item: Body, index: number) => {
      expect(item.object).toBe('item');
      expect(item.text.trim()).not.toBe('');
      expect(item.text).not.toBe(english.body.data[index].text);
    });
    expect(french.body.scale.labels.map((label: Body) => label.value)).toEqual([1, 2, 3, 4, 5]);
    expect(french.body.scale.labels.map((label: Body) => label.label)).toEqual([
      'Ne me ressemble pas du tout',
      'Me ressemble un peu',
      'Me ressemble assez',
      'Me ressemble beaucoup',
      'Me ressemble tout à fait',
    ]);
    expect((await api.call('GET', '/v1/nature/items?language=en')).body).toEqual(english.body);
  });

  it('decides the language by the parameter alone: Accept-Language is not read', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/v1/nature/items',
      headers: { authorization: `Bearer ${(await t.mint('test', 'sk')).raw}`, 'accept-language': 'fr-FR,fr;q=0.9' },
    });
    expect(response.json().language).toBe('en');
    expect(response.json().data[0].text).toBe(items[0]!.text);
  });

  it.each([
    ['language=de', '/language', '`language` must be one of: en, fr.'],
    ['language=FR', '/language', '`language` must be one of: en, fr.'],
    ['language=', '/language', '`language` must be one of: en, fr.'],
    ['langage=fr', '/langage', 'Unknown query parameter `langage`: did you mean `language`?'],
  ])('refuses ?%s with 422 validation_failed naming the parameter', async (query, path, message) => {
    const response = await t.app.inject({
      method: 'GET',
      url: `/v1/nature/items?${query}`,
      headers: { authorization: `Bearer ${(await t.mint('test', 'sk')).raw}` },
    });
    expect(expectProblem(response, 422, 'validation_failed').errors).toEqual([{ path, in: 'query', message }]);
  });

  it('lets a publishable key read the French bank, as the component does', async () => {
    const pk = (await t.mint('test', 'pk')).raw;
    const response = await t.app.inject({ method: 'GET', url: '/v1/nature/items?language=fr', headers: { authorization: `Bearer ${pk}` } });
    expect(response.statusCode).toBe(200);
    expect(response.json().language).toBe('fr');
  });

  it('makes an assessment started with language fr French, its profile French with v1-fr narratives; without a language it is English', async () => {
    const { started, assessment, profile } = await completeIn('fr', patterns[2]!.value);
    expect(started).toMatchObject({ language: 'fr', requested_language: 'fr' });
    expect(assessment).toMatchObject({ language: 'fr', requested_language: 'fr', status: 'completed' });
    expect(profile.language).toBe('fr');
    expect(profile.descriptions.version).toBe('v1-fr');
    expect(profile.descriptions).toEqual(describeScores({ natures: profile.natures, intelligences: profile.intelligences }, 'fr'));
    for (const { text } of [...profile.descriptions.natures, ...profile.descriptions.intelligences]) {
      expect(text).toMatch(/^Une .+\u00a0: .+\.$/);
      expect(text).not.toMatch(/\d/);
    }
    const byId = await api.call('GET', `/v1/nature/profiles/${profile.id}`);
    expect(byId.body).toEqual(profile);

    const plain = await completeIn(undefined, patterns[2]!.value);
    expect(plain.started).toMatchObject({ language: 'en', requested_language: 'en' });
    expect(plain.profile).toMatchObject({ language: 'en', descriptions: { version: 'v1' } });
  });

  it.each(patterns.map((pattern) => [pattern.name, pattern] as const))(
    'scores the same answers the same in French as in English: %s',
    async (name, { value }) => {
      const [english, french] = await Promise.all([completeIn('en', value), completeIn('fr', value)]);
      // Only all 1s leaves every raw score below 7: every other pattern has narratives to compare.
      const narratives = french.profile.descriptions.natures.length + french.profile.descriptions.intelligences.length;
      if (name === 'all 1') expect(narratives).toBe(0);
      else expect(narratives).toBeGreaterThan(0);
      expect(french.profile.scoring_version).toBe(english.profile.scoring_version);
      expect(french.profile.natures).toEqual(english.profile.natures);
      expect(french.profile.intelligences).toEqual(english.profile.intelligences);
      expect(french.profile.quality).toEqual(english.profile.quality);
      // The same constructs and bands are described, each in its own language.
      for (const family of ['natures', 'intelligences'] as const) {
        const described = (profile: Body) => profile.descriptions[family].map(({ construct, band }: Body) => ({ construct, band }));
        expect(described(french.profile)).toEqual(described(english.profile));
        french.profile.descriptions[family].forEach((description: Body, index: number) => {
          expect(description.text).not.toBe(english.profile.descriptions[family][index].text);
        });
      }
    },
  );

  it("draws a French profile's chart in French", async () => {
    const { profile } = await completeIn('fr', patterns[1]!.value);
    const response = await t.app.inject({
      method: 'GET',
      url: `/v1/nature/profiles/${profile.id}/chart.svg`,
      headers: { authorization: `Bearer ${(await t.mint('test', 'sk')).raw}` },
    });
    expect(response.statusCode).toBe(200);
    expect(response.body).toContain('lang="fr"');
    expect(response.body).toContain('<title id="profile-chart-title">Profil Nature</title>');
    expect(response.body).toContain('Aventureuse');
    expect(response.body).toContain('1,00 · très élevé');
    expect(response.body).not.toContain('very high');
  });

  it('describes the parameter and the languages in the OpenAPI document', async () => {
    const document = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const listItems = document.paths['/v1/nature/items'].get;
    expect(listItems.parameters).toEqual([
      expect.objectContaining({
        name: 'language',
        in: 'query',
        required: false,
        description: expect.stringContaining('Accept-Language is not read'),
        schema: expect.objectContaining({ enum: ['en', 'fr'], default: 'en' }),
      }),
    ]);
    const schemas = document.components.schemas;
    expect(schemas.ItemBank.properties.language.enum).toEqual(['en', 'fr']);
    expect(schemas.Assessment.properties.language.enum).toEqual(['en', 'fr']);
    expect(schemas.Profile.properties.language.enum).toEqual(['en', 'fr']);
    expect(schemas.StartAssessmentRequest.properties.language).toMatchObject({ enum: ['en', 'fr'], default: 'en' });
  });
});

describe('a profile rebuild of a French assessment', () => {
  let t: TestApp;
  afterAll(() => t.close());

  it('keeps the new profile French, with v1-fr narratives', async () => {
    // The server scores with v1, as one deployed before the fix would; the rebuild rescores with v2.
    t = await openTestApp({ NATURE_SCORING_VERSION: 'mn76-v1' });
    const api = client(t, (await t.mint('test', 'sk')).raw);
    const subject = (await api.call('POST', '/v1/nature/subjects', validSubject())).body;
    const assessment = (await api.call('POST', `/v1/nature/subjects/${subject.id}/assessments`, { language: 'fr' })).body;
    const responses = items.map((item, index) => ({ item_id: item.id, value: (index % 5) + 1 }));
    await api.call('PATCH', `/v1/nature/subjects/${subject.id}/assessments/${assessment.id}`, { responses });
    expect(await api.profileOf(subject.id)).toMatchObject({ scoring_version: 'mn76-v1', language: 'fr' });

    const env = t.envs.test;
    await rebuildProfiles({ sealedLog: env.sealedLog, events: env.events, readModels: env.readModels }, 'mn76-v2', {
      onProgress: () => {},
    });
    const rebuilt = await eventually(async () => {
      const profile = (await api.call('GET', `/v1/nature/subjects/${subject.id}/profile`)).body;
      return profile.scoring_version === 'mn76-v2' ? profile : undefined;
    });
    expect(rebuilt.language).toBe('fr');
    expect(rebuilt.descriptions.version).toBe('v1-fr');
    expect(rebuilt.descriptions).toEqual(describeScores({ natures: rebuilt.natures, intelligences: rebuilt.intelligences }, 'fr'));
  });
});
