import { type Construct, constructs } from '../scoring/constructs.js';
import type { Language } from '../scoring/languages.js';
import { toThousandths } from '../support/thousandths.js';
import { type CompiledLexicon, candidatesAt, compileLexicon, foldedWords, type Lexicon, type Term, termAt } from './lexicon.js';
import { englishLexicon } from './lexicon-en.js';
import { frenchLexicon } from './lexicon-fr.js';

/**
 * Reads what a situation draws on from its words, offline: each construct's lexicon terms found in the text add up,
 * a term under a negation ("no need to speak") counts nothing, one near an intensity word ("constantly") counts
 * more, one near a softening word ("now and then") less; the sum per construct becomes a demand in 0..1 that
 * saturates (1 − e^(−sum / SATURATION)), so a construct the text never mentions demands 0.
 *
 * Cues act within a clause: the text is cut at punctuation and at contrast words ("but", "however", "mais"…) first.
 * Set phrases that hold a negation word without negating ("no doubt", "not only", "pas à pas", "sans abri") are
 * read whole first, as are lexicon terms that begin with one ("never been"). French "ne" negates with its second word
 * ("ne soigne pas": from "ne" to "pas" and on), never alone ("ne fait que chanter": only sings).
 */

export const SATURATION = 1.5;
const NEGATION_REACH = 5;
/** How far after French "ne" its second word may stand ("ne soigne plus guère"). */
const NE_REACH = 3;
const INTENSITY_REACH_AHEAD = 4;
const INTENSITY_REACH_BACK = 3;
const INTENSE = 1.5;
const SOFTENED = 0.5;
/**
 * A construct is among what a situation draws on most when its demand is at least this share of the highest: chosen
 * on half the labelled set (bench/situations.json, odd ids) as the share with the best recall at a precision of 0.65
 * or more; 0.5 named more constructs, and more wrong ones.
 */
const MOST_SHARE = 0.6;
const MOST = 3;

interface Cues {
  negations: ReadonlySet<string>;
  /** Phrases that hold a negation word and do not negate. */
  notNegating: readonly string[];
  /** French "ne" and the second words that make it a negation, within NE_REACH words. */
  secondWords?: ReadonlySet<string>;
  /** Words and phrases (folded, spaces between words) that make what is near them count more, or less. */
  intense: readonly string[];
  softened: readonly string[];
  /** Words that start a new clause. */
  breaks: ReadonlySet<string>;
}

const cues: Record<Language, Cues> = {
  en: {
    // "t" is what is left of "n't" once the text is split at apostrophes (only after a word ending in n: "don t").
    negations: new Set(['no', 'not', 'never', 'without', 'nor', 'neither', 'none', 'nobody', 'nothing', 't', 'cannot', 'hardly']),
    notNegating: ['no doubt', 'not only', 'no nonsense', 'without fail', 'not least', 'no matter'],
    intense: [
      'constantly',
      'constant',
      'always',
      'all day',
      'every day',
      'all the time',
      'non stop',
      'continuously',
      'continually',
      'repeatedly',
      'intensely',
      'intense',
      'very',
      'extremely',
      'mostly',
      'mainly',
      'above all',
      'a lot of',
      'lots of',
      'heavily',
    ],
    softened: ['occasionally', 'sometimes', 'rarely', 'a little', 'slightly', 'now and then', 'once in a while', 'a bit'],
    breaks: new Set(['but', 'however', 'although', 'though', 'whereas']),
  },
  fr: {
    negations: new Set(['pas', 'jamais', 'sans', 'aucun', 'aucune', 'ni', 'nullement', 'guere', 'rien']),
    notNegating: ['sans doute', 'pas mal', 'pas a pas', 'sans abri', 'sans relache', 'ne pas que'],
    secondWords: new Set(['pas', 'jamais', 'plus', 'rien', 'guere', 'aucun', 'aucune', 'personne', 'point', 'nullement']),
    intense: [
      'sans arret',
      'sans cesse',
      'en permanence',
      'constamment',
      'toujours',
      'toute la journee',
      'tout le temps',
      'chaque jour',
      'tous les jours',
      'beaucoup',
      'enormement',
      'tres',
      'surtout',
      'essentiellement',
      'intense',
      'intensement',
    ],
    softened: ['parfois', 'rarement', 'un peu', 'peu', 'occasionnellement', 'de temps en temps', 'de temps a autre', 'legerement'],
    breaks: new Set(['mais', 'cependant', 'pourtant', 'toutefois', 'tandis']),
  },
};

/** Compiled on a language's first reading (some 15 ms and 1 MB each): a server never asked for one pays nothing. */
const sources: Record<Language, Lexicon> = { en: englishLexicon, fr: frenchLexicon };
const compiled = new Map<Language, CompiledLexicon>();
function lexiconOf(language: Language): CompiledLexicon {
  let lexicon = compiled.get(language);
  if (lexicon === undefined) {
    lexicon = compileLexicon(sources[language]);
    compiled.set(language, lexicon);
  }
  return lexicon;
}

/**
 * A text is too thin to read (`situation_unclear`) when the lexicons match fewer of its words than this, or when all
 * it matched was negated. One: on the labelled set 6 of 132 situations match no word and 24 match one, which a rater
 * reads without trouble; refusing those (two) would refuse a quarter of them.
 */
export const MIN_KNOWN_WORDS = 1;

/** Whether a reading is too thin to go on with: nothing it read demands anything. */
export const unclear = (reading: SituationReading): boolean => reading.knownWords < MIN_KNOWN_WORDS || reading.drawsOnMost.length === 0;

export interface SituationReading {
  /** What the situation draws on, 0..1 per construct. */
  demand: Record<Construct, number>;
  /** The words of the text that lexicon terms matched, negated or not: how much of it could be read. */
  knownWords: number;
  /** Up to three constructs, the highest demands first (ties by name), each at least 0.6 of the highest. */
  drawsOnMost: Construct[];
}

/** A phrase found at a place: how many words it spans. */
function phraseAt(phrases: readonly string[][], words: readonly string[], at: number): number {
  for (const phrase of phrases) {
    if (phrase.every((word, i) => words[at + i] === word)) return phrase.length;
  }
  return 0;
}

/** A language's cue phrases, each split into its words once. */
const cuePhrases = Object.fromEntries(
  Object.entries(cues).map(([language, { intense, softened, notNegating }]) => {
    const split = (phrases: readonly string[]) => phrases.map((phrase) => phrase.split(' '));
    return [language, { intense: split(intense), softened: split(softened), notNegating: split(notNegating) }];
  }),
) as Record<Language, { intense: string[][]; softened: string[][]; notNegating: string[][] }>;

/**
 * The last word of a negation starting at `at`, from which its reach counts, or -1 when the word there does not
 * negate: the word itself, or for French "ne" its second word ("ne soigne pas": "pas").
 */
function negationEnd(words: readonly string[], at: number, language: Language, lexicon: CompiledLexicon): number {
  const { negations, secondWords } = cues[language];
  const word = words[at]!;
  if (secondWords !== undefined && (word === 'ne' || word === 'n')) {
    for (let i = at + 1; i <= Math.min(words.length - 1, at + NE_REACH); i++) if (secondWords.has(words[i]!)) return i;
    return -1;
  }
  if (!negations.has(word) || termsAt(lexicon, words, at).length > 0) return -1;
  if (word === 't' && !(words[at - 1] ?? '').endsWith('n')) return -1;
  return at;
}

/** Per word of a clause: the factor its cues give a term starting there (0 negated, INTENSE, SOFTENED or 1). */
function factors(words: readonly string[], language: Language, lexicon: CompiledLexicon): number[] {
  const phrases = cuePhrases[language];
  const factor = words.map(() => 1);
  for (let at = 0; at < words.length; at++) {
    // Set phrases are read whole first: "sans arrêt" is intensity, "sans doute" nothing, though both hold "sans".
    const skipped = phraseAt(phrases.notNegating, words, at);
    if (skipped > 0) {
      at += skipped - 1;
      continue;
    }
    const intenseLength = phraseAt(phrases.intense, words, at);
    const length = intenseLength || phraseAt(phrases.softened, words, at);
    if (length > 0) {
      const by = intenseLength > 0 ? INTENSE : SOFTENED;
      const [from, to] = [Math.max(0, at - INTENSITY_REACH_BACK), Math.min(words.length, at + length + INTENSITY_REACH_AHEAD)];
      for (let i = from; i < to; i++) if (factor[i] !== 0) factor[i] = by;
      at += length - 1;
      continue;
    }
    const end = negationEnd(words, at, language, lexicon);
    if (end === -1) continue;
    for (let i = at + 1; i <= Math.min(words.length - 1, end + NEGATION_REACH); i++) factor[i] = 0;
  }
  return factor;
}

/** The clauses of a text, each as its folded words. */
function clausesOf(text: string, language: Language): string[][] {
  const { breaks } = cues[language];
  const clauses: string[][] = [];
  for (const part of text.split(/[.;:!?,()[\]"«»\u201c\u201d\u2026/\n\u2014\u2013]+|\s-\s/u)) {
    let clause: string[] = [];
    for (const word of foldedWords(part)) {
      if (!breaks.has(word)) clause.push(word);
      else if (clause.length > 0) {
        clauses.push(clause);
        clause = [];
      }
    }
    if (clause.length > 0) clauses.push(clause);
  }
  return clauses;
}

/** The terms found at a word: the longest ones that match, at most one per construct (its heaviest). */
function termsAt(lexicon: CompiledLexicon, words: readonly string[], at: number): Term[] {
  const matching = candidatesAt(lexicon, words[at]!).filter((term) => termAt(term, words, at));
  const longest = Math.max(0, ...matching.map((term) => term.words.length));
  const best = new Map<Construct, Term>();
  for (const term of matching) {
    if (term.words.length !== longest) continue;
    const known = best.get(term.construct);
    if (known === undefined || known.weight < term.weight) best.set(term.construct, term);
  }
  return [...best.values()];
}

export function readSituation(text: string, language: Language): SituationReading {
  return readWith(lexiconOf(language), text, language);
}

/** The reading with another lexicon: the benchmark measures variants (a lexicon expanded through WordNet) so. */
export function readWith(lexicon: CompiledLexicon, text: string, language: Language): SituationReading {
  const sums = new Map<Construct, number>();
  let knownWords = 0;
  for (const words of clausesOf(text, language)) {
    const factor = factors(words, language, lexicon);
    for (let at = 0; at < words.length; ) {
      const terms = termsAt(lexicon, words, at);
      if (terms.length === 0) {
        at++;
        continue;
      }
      for (const term of terms) sums.set(term.construct, (sums.get(term.construct) ?? 0) + term.weight * factor[at]!);
      const length = terms[0]!.words.length;
      knownWords += length;
      at += length;
    }
  }
  const demandOf = (construct: Construct) => toThousandths(1 - Math.exp(-(sums.get(construct) ?? 0) / SATURATION));
  const demand = Object.fromEntries(constructs.map((construct) => [construct, demandOf(construct)])) as Record<Construct, number>;
  return { demand, knownWords, drawsOnMost: drawsOnMost(demand) };
}

/** Up to three constructs with a demand, the highest first (ties by name), each at least MOST_SHARE of the highest. */
export function drawsOnMost(demand: Record<Construct, number>): Construct[] {
  const ranked = (Object.entries(demand) as [Construct, number][])
    .filter(([, value]) => value > 0)
    .sort(([a, x], [b, y]) => y - x || (a < b ? -1 : 1));
  const top = ranked[0]?.[1] ?? 0;
  return ranked
    .filter(([, value]) => value >= top * MOST_SHARE)
    .slice(0, MOST)
    .map(([construct]) => construct);
}
