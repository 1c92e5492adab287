// Which language the element speaks. The caller's `language` attribute decides; without it, the assessment's own
// language (the items and the profile are in it); before the assessment is known, or when it names none the
// element speaks, the page's language; else English. Free of DOM types: the page's language is read by the element.

export const LANGUAGES = ['en', 'fr'] as const;
export type Language = (typeof LANGUAGES)[number];

/** The language a tag such as `fr`, `fr-CA` or `FR` names, by its primary subtag; null for one the element does not speak. */
export function supportedLanguage(tag: string | null | undefined): Language | null {
  const primary = tag?.trim().split(/[-_]/)[0]?.toLowerCase();
  return LANGUAGES.find((language) => language === primary) ?? null;
}

export interface LanguageSources {
  /** The element's `language` attribute. */
  attribute: string | null;
  /** The assessment's `language`, once it is loaded (absent from older servers). */
  assessment?: string | null | undefined;
  /** The `lang` of the closest element that has one, else of the document. */
  page: string | null;
}

export function resolveLanguage({ attribute, assessment, page }: LanguageSources): Language {
  return supportedLanguage(attribute) ?? supportedLanguage(assessment) ?? supportedLanguage(page) ?? 'en';
}
