import { type Construct, constructs } from '../scoring/constructs.js';

/**
 * What a situation's words say it draws on, per construct: `strong` terms signal the construct clearly, `related`
 * ones weakly. A term is a folded word or a phrase of up to three (see `foldedWords`); a trailing `*` makes its last
 * word a beginning ("teach*": teach, teacher, teaching).
 */
export type Lexicon = Record<Construct, { strong: readonly string[]; related: readonly string[] }>;

const STRONG = 1;
const RELATED = 0.5;

/** One term of a lexicon, ready to be matched: its words, whether the last is a beginning, its construct, its weight. */
export interface Term {
  words: readonly string[];
  stem: boolean;
  construct: Construct;
  weight: number;
}

/** A lexicon's terms filed by their first word: exact first words, and first words that are beginnings. */
export interface CompiledLexicon {
  byWord: ReadonlyMap<string, readonly Term[]>;
  byBeginning: ReadonlyMap<string, readonly Term[]>;
  shortestBeginning: number;
}

/**
 * Text as the lexicons are written: lower case, accents and other marks dropped, ligatures spelt out ("œ" reads
 * "oe"), then split into words at anything that is not a letter or a digit (apostrophes too: "l'enfant" is "l",
 * "enfant"; "don't" is "don", "t").
 */
export function foldedWords(text: string): string[] {
  return text
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replaceAll('œ', 'oe')
    .replaceAll('æ', 'ae')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');
}

export function compileLexicon(lexicon: Lexicon): CompiledLexicon {
  const byWord = new Map<string, Term[]>();
  const byBeginning = new Map<string, Term[]>();
  let shortestBeginning = Number.POSITIVE_INFINITY;
  for (const construct of constructs) {
    const { strong, related } = lexicon[construct];
    const terms = [...strong.map((text) => [text, STRONG] as const), ...related.map((text) => [text, RELATED] as const)];
    for (const [text, weight] of terms) {
      const stem = text.endsWith('*');
      const words = foldedWords(stem ? text.slice(0, -1) : text);
      if (words.length === 0 || words.length > 3) throw new Error(`lexicon term "${text}" (${construct}) must be 1 to 3 words`);
      const term: Term = { words, stem, construct, weight };
      // A one-word stem is found by the word's beginning; a phrase by its first word, whole.
      const [first] = words as [string];
      const file = stem && words.length === 1 ? byBeginning : byWord;
      file.set(first, [...(file.get(first) ?? []), term]);
      if (file === byBeginning) shortestBeginning = Math.min(shortestBeginning, first.length);
    }
  }
  return { byWord, byBeginning, shortestBeginning };
}

/** Whether `term` is found at `words[at…]`. */
export function termAt(term: Term, words: readonly string[], at: number): boolean {
  const last = term.words.length - 1;
  for (let i = 0; i <= last; i++) {
    const word = words[at + i];
    if (word === undefined) return false;
    const wanted = term.words[i]!;
    const beginning = i === last && term.stem;
    if (beginning ? !word.startsWith(wanted) : word !== wanted) return false;
  }
  return true;
}

/** The terms that may start at a word: those filed under it, and the one-word beginnings it starts with. */
export function candidatesAt(lexicon: CompiledLexicon, word: string): Term[] {
  const found = [...(lexicon.byWord.get(word) ?? [])];
  for (let length = lexicon.shortestBeginning; length <= word.length; length++) {
    const terms = lexicon.byBeginning.get(word.slice(0, length));
    if (terms !== undefined) found.push(...terms);
  }
  return found;
}
