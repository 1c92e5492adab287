import { describe, expect, it } from 'vitest';
import { intelligences, natures } from '../../src/scoring/constructs.js';
import { candidatesAt, compileLexicon, foldedWords, type Lexicon, termAt } from '../../src/situational/lexicon.js';

/** A lexicon with a few terms for two constructs, none for the others. */
function tinyLexicon(terms: Partial<Lexicon>): Lexicon {
  const empty = Object.fromEntries([...natures, ...intelligences].map((construct) => [construct, { strong: [], related: [] }]));
  return { ...empty, ...terms } as Lexicon;
}

const lexicon = compileLexicon(
  tinyLexicon({
    educative: { strong: ['teach*', 'lesson plan'], related: ['coach'] },
    bodily_gross_motor: { strong: ['swim*'], related: ['coach'] },
    healing: { strong: ['take care of', 'soign*'], related: [] },
  }),
);

/** The terms found at each word of a text: construct and weight, as "construct/weight". */
function found(text: string): string[][] {
  const words = foldedWords(text);
  return words.map((word, at) =>
    candidatesAt(lexicon, word)
      .filter((term) => termAt(term, words, at))
      .map((term) => `${term.construct}/${term.weight}`),
  );
}

describe('the lexicons', () => {
  it('fold text as the lexicons are written: lower case, no marks, ligatures spelt out, split at apostrophes', () => {
    expect(foldedWords("Soigner l'Œil d'un ÉLÈVE, don't stop!")).toEqual(['soigner', 'l', 'oeil', 'd', 'un', 'eleve', 'don', 't', 'stop']);
  });

  it('match a beginning only where the term ends with *, and a whole word elsewhere', () => {
    expect(found('teaching teach teacher')).toEqual([['educative/1'], ['educative/1'], ['educative/1']]);
    expect(found('coaching')).toEqual([[]]);
    expect(found('coach')).toEqual([['educative/0.5', 'bodily_gross_motor/0.5']]);
  });

  it('match a phrase only when all its words follow one another', () => {
    expect(found('take care of them')[0]).toEqual(['healing/1']);
    expect(found('take good care of them')[0]).toEqual([]);
    expect(found('a lesson plan')[1]).toEqual(['educative/1']);
    expect(found('a lesson')[1]).toEqual([]);
  });

  it('match French stems across accents', () => {
    expect(found('Elle soignait les blessés')[1]).toEqual(['healing/1']);
  });

  it('refuse a term of more than three words, naming it', () => {
    const long = tinyLexicon({ musical: { strong: ['play the old piano'], related: [] } });
    expect(() => compileLexicon(long)).toThrow(/"play the old piano" \(musical\) must be 1 to 3 words/);
  });
});
