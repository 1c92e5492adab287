import { describe, expect, it } from 'vitest';
import { type Construct, intelligences, natures } from '../../src/scoring/constructs.js';
import { ITEM_SET_VERSION, items, scale } from '../../src/scoring/item-bank.js';
import { bandOf, narrative } from '../../src/scoring/narratives-v1.js';
import { describeScores } from '../../src/scoring/scorer.js';
import { scorers } from '../../src/scoring/scorers.js';
import { knownProfile, knownProfileV1, knownResponses } from '../support/known-answers.js';

const scoreV1 = scorers['mn76-v1']!;

/** Answers giving each construct the raw score asked for (others `fallback`). */
function answersFor(raws: Partial<Record<Construct, number>>, fallback = 2): Record<string, number> {
  const sums = new Map<Construct, number>();
  const answers: Record<string, number> = {};
  const seen = new Map<Construct, number>();
  for (const item of items) {
    const total = (raws[item.construct] ?? fallback) * 2;
    sums.set(item.construct, total);
    const round = seen.get(item.construct) ?? 0;
    seen.set(item.construct, round + 1);
    // Spread the sum over the 4 answers: the first (total mod 4) get one more.
    answers[item.id] = Math.floor(total / 4) + (round < total % 4 ? 1 : 0);
  }
  return answers;
}

describe('item bank', () => {
  it('has 76 items mn_001..mn_076 in id order, 4 per construct, each text distinct', () => {
    expect(items.map((i) => i.id)).toEqual(Array.from({ length: 76 }, (_, i) => `mn_${String(i + 1).padStart(3, '0')}`));
    for (const construct of [...natures, ...intelligences]) expect(items.filter((i) => i.construct === construct)).toHaveLength(4);
    expect(new Set(items.map((i) => i.text)).size).toBe(76);
    expect(items.every((i) => /^I |^My |^People |^A /.test(i.text) && i.text.endsWith('.'))).toBe(true);
    expect(ITEM_SET_VERSION).toBe('mn76-items-v1');
  });

  it('never puts two items of one construct next to each other', () => {
    for (let i = 1; i < items.length; i++) expect(items[i]!.construct).not.toBe(items[i - 1]!.construct);
  });

  it('answers on a 1..5 scale with a label per point', () => {
    expect(scale.labels.map((l) => l.value)).toEqual([1, 2, 3, 4, 5]);
  });
});

describe('scorer mn76-v1', () => {
  it('scores the known pattern exactly as worked out by hand', () => {
    const answers = Object.fromEntries(knownResponses.map((r) => [r.item_id, r.value]));
    const { language: _language, descriptions, ...expected } = knownProfileV1;
    const { quality, ...profile } = scoreV1(answers);
    expect(profile).toEqual(expected);
    // Answered with care and sent without timing: nothing flagged, the timing indicators null.
    expect(quality.flagged).toBe(false);
    expect(quality.indicators.too_fast_share.value).toBeNull();
    expect(describeScores(profile, 'en')).toEqual(descriptions);
  });

  it('maps raw 2..10 to 0..1: all 1s score 0, all 5s score 1, raw 5 scores 0.375', () => {
    const low = scoreV1(answersFor({}, 2));
    const high = scoreV1(answersFor({}, 10));
    expect(Object.values(low.natures).every((s) => s === 0)).toBe(true);
    expect(Object.values(high.intelligences).every((s) => s === 1)).toBe(true);
    expect(scoreV1(answersFor({ logical: 5 })).intelligences.logical).toBe(0.375);
    expect(scoreV1(answersFor({ logical: 2.5 })).intelligences.logical).toBe(0.0625);
  });

  it('returns the 9 Natures and 10 Intelligences in alphabetical order', () => {
    const profile = scoreV1(answersFor({ providing: 10, visual_spatial: 10 }));
    expect(Object.keys(profile.natures)).toEqual([...natures].sort());
    expect(Object.keys(profile.intelligences)).toEqual([...intelligences].sort());
  });

  it('describes raw 7 but not raw 6.5 (the threshold)', () => {
    const profile = scoreV1(answersFor({ healing: 7, creative: 6.5, musical: 7, logical: 6.5 }));
    expect(describeScores(profile, 'en').natures.map((d) => d.construct)).toEqual(['healing']);
    expect(describeScores(profile, 'en').intelligences.map((d) => d.construct)).toEqual(['musical']);
    expect(describeScores(profile, 'en').natures[0]!.band).toBe('medium_high');
  });

  it('describes nothing when no construct reaches raw 7', () => {
    expect(describeScores(scoreV1(answersFor({}, 6.5)), 'en')).toEqual({ version: 'v1', natures: [], intelligences: [] });
  });

  it('keeps at most 3 per family, the highest raw first, and returns them alphabetically', () => {
    const profile = scoreV1(answersFor({ adventurous: 10, creative: 9.5, entrepreneurial: 9, healing: 8.5, providing: 7 }));
    expect(describeScores(profile, 'en').natures.map((d) => d.construct)).toEqual(['adventurous', 'creative', 'entrepreneurial']);
  });

  it('breaks ties at the cut of 3 by the canonical order (Natures)', () => {
    // All nine at raw 8: protective, educative, administrative come first in the canonical order.
    const profile = scoreV1(answersFor({}, 8));
    expect(describeScores(profile, 'en').natures.map((d) => d.construct)).toEqual(['administrative', 'educative', 'protective']);
    // adventurous is last in canonical order but highest: it stays; the tie below it goes canonical.
    const mixed = scoreV1(answersFor({ adventurous: 9, providing: 8, entrepreneurial: 8, healing: 8 }));
    expect(describeScores(mixed, 'en').natures.map((d) => d.construct)).toEqual(['adventurous', 'healing', 'providing']);
  });

  it('breaks ties at the cut of 3 by the canonical order (Intelligences)', () => {
    const profile = scoreV1(answersFor({}, 7));
    expect(describeScores(profile, 'en').intelligences.map((d) => d.construct)).toEqual([
      'bodily_fine_motor',
      'bodily_gross_motor',
      'interpersonal',
    ]);
    const tail = scoreV1(answersFor({ naturalistic: 7.5, intrapersonal: 7, musical: 7, visual_spatial: 7 }));
    expect(describeScores(tail, 'en').intelligences.map((d) => d.construct)).toEqual(['naturalistic', 'visual_spatial', 'musical'].sort());
  });

  it.each([
    [2, 'low'],
    [3, 'low'],
    [3.5, 'medium_low'],
    [4.5, 'medium_low'],
    [5, 'medium'],
    [6, 'medium'],
    [6.5, 'medium_high'],
    [7.5, 'medium_high'],
    [8, 'high'],
    [8.5, 'high'],
    [9, 'very_high'],
    [10, 'very_high'],
  ])('puts raw %d in the %s band', (raw, band) => {
    expect(bandOf(raw)).toBe(band);
  });

  it('writes one sentence per construct and band, with level words and no numbers', () => {
    for (const construct of [...natures, ...intelligences]) {
      const family = (natures as readonly string[]).includes(construct) ? 'natures' : 'intelligences';
      const texts = (['medium_high', 'high', 'very_high'] as const).map((band) => narrative(family, construct, band));
      expect(new Set(texts).size).toBe(3);
      for (const text of texts) {
        expect(text).toMatch(/^Shows a [^.]+\.$/);
        expect(text).not.toMatch(/\d/);
      }
      expect(narrative(family, construct, 'high')).toBe(narrative(family, construct, 'high'));
    }
    expect(() => narrative('natures', 'creative', 'medium')).toThrow();
  });

  it('refuses to score fewer than 76 answers or an answer off the scale', () => {
    const answers = answersFor({});
    const { mn_001: _dropped, ...missing } = answers;
    expect(() => scoreV1(missing)).toThrow(/76/);
    expect(() => scoreV1({ ...answers, mn_001: 6 })).toThrow(/mn_001/);
  });
});

describe('scorer mn76-v2', () => {
  const answers = Object.fromEntries(knownResponses.map((r) => [r.item_id, r.value]));

  it('keys mn_056 to visual_spatial and mn_057 to visual_graphic, everything else as v1', () => {
    const { language: _language, descriptions, ...expected } = knownProfile;
    const { quality: _quality, ...profile } = scorers['mn76-v2']!(answers);
    expect(profile).toEqual(expected);
    expect(describeScores(profile, 'en')).toEqual(descriptions);
  });

  it('differs from v1 exactly when mn_056 and mn_057 are answered differently', () => {
    const { scoring_version: _v1, ...v1 } = scoreV1(answers);
    const same = { ...answers, mn_056: 4, mn_057: 4 };
    const { scoring_version: _a, ...v1Same } = scoreV1(same);
    const { scoring_version: _b, ...v2Same } = scorers['mn76-v2']!(same);
    expect(v2Same).toEqual(v1Same);
    const { scoring_version: _c, ...v2 } = scorers['mn76-v2']!(answers);
    expect(v2).not.toEqual(v1);
    expect(v2.natures).toEqual(v1.natures);
  });

  it('still has four items per construct, so every score stays on the 0..1 grid', () => {
    const high = scorers['mn76-v2']!(answersFor({}, 10));
    expect([...Object.values(high.natures), ...Object.values(high.intelligences)].every((score) => score === 1)).toBe(true);
  });
});
