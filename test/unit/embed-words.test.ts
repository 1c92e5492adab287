import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../packages/embed/src/language.js';
import { type Words, words } from '../../packages/embed/src/words.js';

/** Every message of a catalogue as text: a message that takes arguments is said with these. */
const said = (catalogue: Words): Record<string, string> =>
  Object.fromEntries(
    Object.entries(catalogue).map(([key, message]) => {
      if (typeof message === 'string') return [key, message];
      const samples: Record<string, unknown[]> = {
        progress: [37, 76],
        position: [21, 76],
        retrying: [5],
        reference: ['unauthenticated', 'req_1'],
        missingAttribute: ['subject-id'],
        missingScope: ['nature-read'],
        originRefused: ['https://app.example.com'],
        notOpen: ['expired', 'This assessment is expired and no longer takes answers.'],
        refused: ['The request body is not valid.'],
      };
      expect(samples[key], `sample arguments for ${key}`).toBeDefined();
      return [key, (message as (...args: unknown[]) => string)(...samples[key]!)];
    }),
  );

describe("the element's catalogues", () => {
  it('has one per language, each with every message, none empty', () => {
    expect(Object.keys(words).sort()).toEqual([...LANGUAGES].sort());
    const keys = Object.keys(words.en).sort();
    for (const language of LANGUAGES) {
      expect(Object.keys(words[language]).sort(), language).toEqual(keys);
      for (const [key, text] of Object.entries(said(words[language]))) expect(text.trim(), `${language}.${key}`).not.toBe('');
    }
  });

  it('leaves no English in French: each message differs from the English one', () => {
    const english = said(words.en);
    for (const [key, text] of Object.entries(said(words.fr))) expect(text, key).not.toBe(english[key]);
    // The zero of the countdown too, and a closed assessment of any status.
    expect(words.fr.retrying(0)).toBe('Nouvel essai en cours…');
    expect(words.fr.notOpen('archived', 'This assessment is archived and no longer takes answers.')).toBe(
      "Cette évaluation n'accepte plus de réponses.",
    );
  });

  it('says the progress, the ending and the result in French as English says them', () => {
    expect(words.fr.progress(37, 76)).toBe('37 réponses sur 76');
    expect(words.fr.progress(0, 76)).toBe('0 réponse sur 76');
    expect(words.fr.progress(1, 76)).toBe('1 réponse sur 76');
    expect(words.fr.done).toBe('Merci\u00a0: vos 76 réponses sont enregistrées.');
    expect(words.fr.resultHeading).toBe('Votre résultat');
    expect(words.fr.loading).toBe('Chargement des questions…');
    expect(words.fr.progressLabel).toBe("Progression de l'évaluation");
  });

  it('follows French typography: a no-break space before : ; ? ! and after a number before its unit, the plain apostrophe, no "·e" forms', () => {
    for (const [key, text] of Object.entries(said(words.fr))) {
      expect(text, key).not.toMatch(/[^\u00a0][;?!]|[^\u00a0]: /);
      expect(text, key).not.toMatch(/\d s\b/);
      expect(text, key).not.toMatch(/[’·«»]|\(e\)/);
    }
  });
});
