import { describe, expect, it } from 'vitest';
import { type LanguageSources, resolveLanguage, supportedLanguage } from '../../packages/embed/src/language.js';

describe('the language the element speaks', () => {
  it.each([
    ['fr', 'fr'],
    ['fr-CA', 'fr'],
    ['FR', 'fr'],
    [' fr-ch ', 'fr'],
    ['fr_FR', 'fr'],
    ['en-GB', 'en'],
    ['EN', 'en'],
    ['de', null],
    ['french', null],
    ['', null],
    [null, null],
    [undefined, null],
  ] as const)('the tag %j names %j', (tag, language) => {
    expect(supportedLanguage(tag)).toBe(language);
  });

  it.each<[string, LanguageSources, 'en' | 'fr']>([
    ['the attribute, over the assessment and the page', { attribute: 'fr', assessment: 'en', page: 'en' }, 'fr'],
    ['the attribute by its primary subtag', { attribute: 'en-GB', assessment: 'fr', page: 'fr' }, 'en'],
    ['the assessment, without an attribute', { attribute: null, assessment: 'fr', page: 'en' }, 'fr'],
    ['the assessment, over an attribute the element does not speak', { attribute: 'de', assessment: 'fr', page: 'en' }, 'fr'],
    ['the page, before the assessment is known', { attribute: null, page: 'fr-CA' }, 'fr'],
    ['the page, when the assessment gives no language (an older server)', { attribute: null, assessment: undefined, page: 'fr' }, 'fr'],
    ['the page, when the assessment names a language the element does not speak', { attribute: null, assessment: 'de', page: 'fr' }, 'fr'],
    ['English, when nothing names a language it speaks', { attribute: 'de', assessment: 'es', page: 'it' }, 'en'],
    ['English, when nothing names a language at all', { attribute: null, assessment: null, page: null }, 'en'],
    ['English, for an empty attribute and lang', { attribute: '', page: '' }, 'en'],
  ])('%s', (_, sources, language) => {
    expect(resolveLanguage(sources)).toBe(language);
  });
});
