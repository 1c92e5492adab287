import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chartWords } from '../../src/charts/chart-words.js';
import { type Construct, type Family, intelligences, natures } from '../../src/scoring/constructs.js';
import { banks, items, scale } from '../../src/scoring/item-bank.js';
import { narrative } from '../../src/scoring/narratives-v1.js';
import { frenchNarrative } from '../../src/scoring/narratives-v1-fr.js';
import { describeScores } from '../../src/scoring/scorer.js';
import { scorers } from '../../src/scoring/scorers.js';

/**
 * Words that are English and never French: one of them in a French text is English left behind. Whole words only,
 * by letters (\p{L}) rather than \b, which would split "l'améliorer" at its é and find "am".
 */
const ENGLISH_WORDS =
  /(?<![\p{L}'])(I|the|and|of|with|when|what|my|your|you|is|are|am|to|like|enjoy|good|feel|people|others|that|this|from|for|not|about|can|shows|drawn|capacity|strong|clear)(?![\p{L}])/u;
/** The marks of a gender written both ways ("·e", "(e)", "/e"), which the issue asks to do without. */
const INCLUSIVE_FORMS = /[·•]|\(e\)|\/e\b|\be\)/i;
/**
 * After "je suis" or "je me sens" French makes a word agree with the speaker ("je suis doué·e"), so those may only
 * be followed by an epicene word: these are the ones the statements use.
 */
const SPEAKER_AGREEMENT = /\b(?:je suis|je me sens) (?!à l'aise\b|responsable\b|bien\b)/i;

const described = ['medium_high', 'high', 'very_high'] as const;
const everyNarrative = (family: Family, constructs: readonly Construct[]) =>
  constructs.flatMap((construct) => described.map((band) => ({ construct, band, text: frenchNarrative(family, construct, band) })));
const frenchNarratives = [...everyNarrative('natures', natures), ...everyNarrative('intelligences', intelligences)];

describe('the French item bank', () => {
  const french = banks.fr;

  it('has the 76 items in the English ids and order, and five labels for the values 1..5, none empty', () => {
    expect(french.items.map((item) => item.id)).toEqual(items.map((item) => item.id));
    expect(french.labels.map((label) => label.value)).toEqual(scale.labels.map((label) => label.value));
    for (const text of [...french.items.map((item) => item.text), ...french.labels.map((label) => label.label)]) {
      expect(text.trim()).toBe(text);
      expect(text.length).toBeGreaterThan(5);
    }
  });

  it('leaves no English: no text is the English one and none holds an English word', () => {
    french.items.forEach((item, index) => {
      expect(item.text).not.toBe(items[index]!.text);
      expect(item.text, item.id).not.toMatch(ENGLISH_WORDS);
    });
    for (const { label } of french.labels) expect(label).not.toMatch(ENGLISH_WORDS);
  });

  it('writes each item as one first-person sentence, with no two items alike', () => {
    for (const { id, text } of french.items) {
      expect(text, id).toMatch(/^[A-ZÀ-Ý].*\.$/u);
      expect(text.slice(0, -1), id).not.toMatch(/[.!?]/);
      expect(text, id).toMatch(/\b(je|j'|me|m'|moi|mon|ma|mes)\b|^(J'|Je )/i);
    }
    expect(new Set(french.items.map((item) => item.text)).size).toBe(76);
  });

  it('is gender-neutral without inclusive forms: nothing agrees with the speaker', () => {
    for (const { id, text } of french.items) {
      expect(text, id).not.toMatch(INCLUSIVE_FORMS);
      expect(text, id).not.toMatch(SPEAKER_AGREEMENT);
    }
    for (const { label } of french.labels) expect(label).not.toMatch(INCLUSIVE_FORMS);
  });

  it("is quoted word for word in the guide's table of the statements that needed a choice", () => {
    const rows = readFileSync(new URL('../../docs/french.md', import.meta.url), 'utf8')
      .split('\n')
      .filter((line) => line.startsWith('| mn_'))
      .map((line) => line.split('|').map((cell) => cell.trim()));
    expect(rows.length).toBeGreaterThan(10);
    for (const [, id, english, frenchText] of rows) {
      expect({ id, english, french: frenchText }).toEqual({
        id,
        english: items.find((item) => item.id === id)?.text,
        french: french.items.find((item) => item.id === id)?.text,
      });
    }
  });

  it('keeps the plain apostrophe throughout, as the English bank does', () => {
    for (const { text } of french.items) expect(text).not.toContain('’');
  });
});

describe('the French narratives (v1-fr)', () => {
  it('are one French sentence per construct and band, with no digits, no English and no inclusive forms', () => {
    expect(frenchNarratives).toHaveLength(19 * 3);
    for (const { construct, band, text } of frenchNarratives) {
      const where = `${construct} ${band}`;
      expect(text, where).toMatch(/^Une [^.]+\u00a0: [^.:]+\.$/);
      expect(text, where).not.toMatch(/\d/);
      expect(text, where).not.toMatch(ENGLISH_WORDS);
      expect(text, where).not.toMatch(INCLUSIVE_FORMS);
      expect(text, where).not.toMatch(/ {2}|\s[,.]/);
    }
    expect(new Set(frenchNarratives.map(({ text }) => text)).size).toBe(frenchNarratives.length);
  });

  it('say the level in words that grow with the band', () => {
    expect(frenchNarrative('natures', 'creative', 'medium_high')).toBe(
      "Une nature créative affirmée\u00a0: le goût d'imaginer et de créer ce qui n'existait pas encore.",
    );
    expect(frenchNarrative('natures', 'creative', 'high')).toMatch(/^Une forte nature créative\u00a0: /);
    expect(frenchNarrative('intelligences', 'logical', 'very_high')).toBe(
      'Une très forte intelligence logique\u00a0: une aptitude pour le raisonnement, les régularités et la résolution de problèmes pas à pas.',
    );
  });

  it('name a two-part Intelligence with its kind in brackets', () => {
    expect(frenchNarrative('intelligences', 'bodily_fine_motor', 'medium_high')).toBe(
      'Une intelligence corporelle (motricité fine) affirmée\u00a0: une aptitude pour le travail manuel précis et habile.',
    );
  });

  it('refuse a band below medium_high, as the English ones do', () => {
    expect(() => frenchNarrative('natures', 'healing', 'medium')).toThrow(/medium_high/);
    expect(() => narrative('natures', 'healing', 'medium')).toThrow(/medium_high/);
  });

  it('follow the same rules as the English: the same constructs and bands, version v1-fr', () => {
    const answers = Object.fromEntries(items.map((item, index) => [item.id, 1 + ((index * 3 + Math.floor(index / 19)) % 5)]));
    const scores = scorers['mn76-v2']!(answers);
    const english = describeScores(scores, 'en');
    const french = describeScores(scores, 'fr');
    expect(english.version).toBe('v1');
    expect(french.version).toBe('v1-fr');
    for (const family of ['natures', 'intelligences'] as const) {
      expect(french[family].map(({ construct, band }) => ({ construct, band }))).toEqual(
        english[family].map(({ construct, band }) => ({ construct, band })),
      );
    }
    expect(describeScores(scores, 'fr')).toEqual(french);
  });
});

describe("the chart's French words", () => {
  it('name every construct and band, none in English, none empty', () => {
    const { fr, en } = chartWords;
    for (const construct of [...natures, ...intelligences]) {
      expect(fr.labels[construct].trim()).not.toBe('');
      expect(fr.labels[construct]).not.toMatch(ENGLISH_WORDS);
    }
    for (const band of Object.keys(en.bands) as (keyof typeof en.bands)[]) {
      expect(fr.bands[band]).not.toBe(en.bands[band]);
      expect(fr.bands[band]).not.toMatch(ENGLISH_WORDS);
    }
    expect(fr.number(0.625, 2)).toBe('0,63');
  });
});
