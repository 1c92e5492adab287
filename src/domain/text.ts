/**
 * What cannot be shown as itself on one line: controls (C0, DEL, C1), format characters (bidi overrides such as
 * U+202E, zero-width spaces and joiners), the line and paragraph separators U+2028/U+2029, lone surrogates, and the
 * default-ignorable code points that render as nothing (the Hangul fillers U+3164 and U+FFA0, variation selectors,
 * tag characters). Any of them would forge, reorder or hide what a reader sees where the text is listed: the
 * operator's terminal, the dashboard's tables, another system's log.
 */
const UNPRINTABLE_CLASS = String.raw`\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Default_Ignorable_Code_Point}`;
const UNPRINTABLE = new RegExp(`[${UNPRINTABLE_CLASS}]`, 'u');
const EVERY_UNPRINTABLE = new RegExp(`[${UNPRINTABLE_CLASS}]`, 'gu');

/** The first character of `text` that cannot be shown as itself on one line, as `U+202E`; undefined if none. */
export function firstUnprintable(text: string): string | undefined {
  const found = UNPRINTABLE.exec(text)?.[0];
  return found === undefined ? undefined : `U+${found.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * `text` with every character that cannot be shown as itself written as its JSON escape (`\u202e`; an astral one as
 * its two halves), so a terminal shows what is there instead of obeying it. Inside a JSON string the escape reads
 * back as the same character, so a JSON line stays the same JSON.
 */
export const escapeUnprintable = (text: string): string =>
  text.replace(EVERY_UNPRINTABLE, (found) =>
    found
      .split('')
      .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
      .join(''),
  );

/**
 * Why a one-line text someone typed (a key's name, an organisation, a rejection's reason) is refused, or undefined:
 * 1..max characters once trimmed, printable only (see UNPRINTABLE_CLASS).
 */
export function lineProblem(noun: string, text: string, max: number): string | undefined {
  const trimmed = text.trim();
  const length = [...trimmed].length;
  if (length === 0 || length > max) return `${noun} has 1 to ${max.toLocaleString('en')} characters.`;
  const unprintable = firstUnprintable(trimmed);
  if (unprintable !== undefined) return `${noun} has printable characters only, on one line (${unprintable} is not).`;
  return undefined;
}
