import { compareCodeUnits } from '../support/code-units.js';
import type { Career, Catalogue, JobZone, SearchQuery, SearchResults, TitleKind } from './catalogue.js';
import { type KeyedCareers, resultsByKey } from './results-pages.js';

/**
 * Search over every title of the catalogue (`GET /v1/careers`), built once per catalogue and then read only.
 *
 * Matching. A title and a query are folded the same way: Unicode NFKD, combining marks dropped, lower case,
 * apostrophes dropped ("Men's" reads "mens"), then split into words at anything that is not a letter or a digit.
 * A title matches when every word of the query matches some word of the title:
 * - exactly ("nurse" and "Nurse");
 * - as its beginning ("nur" and "Nurses");
 * - for a query word of 5 or more letters, with one typo: one letter inserted, deleted, replaced or two adjacent
 *   letters swapped turns the query word into the title word ("enginer" and "Engineer") or into its beginning
 *   ("nurce" and "Nurses"). Shorter words get no typo: at 4 letters one edit reaches too many unrelated words.
 * A word repeated in a query counts once. A query with no letters or digits is no query: every career matching the
 * filters, in title order.
 *
 * Ranking, each rule breaking the ties of the one before:
 * 1. fewer query words matched only through a typo;
 * 2. fewer words in the title, so fewer words the query did not ask for ("Registered Nurses" before
 *    "Registered Health Nurse" for "registered nurse");
 * 3. how well the words matched: each query word scores 4 exact, 3 beginning, 2 typo on the whole word, 1 typo on
 *    its beginning (its best match in the title), summed, highest first;
 * 4. the occupation's own title, then its alternate titles, then the titles workers reported;
 * 5. title order: the folded title by code point, then the title as written, then the career id. The order is
 *    total, so a cursor over it is stable, and does not depend on the machine's locale.
 *
 * Filters: `jobZones` keeps careers whose occupation's job zone is among them (none when the list is empty, and
 * never an occupation without a job zone); `occupationCode` keeps one occupation's careers.
 *
 * The index is a sorted vocabulary of folded words (a beginning is a range of it, looked up by hash; typos are looked
 * up by the deletions they share with the words' beginnings, see BeginningTable) and, per word, the careers it occurs in
 * as one typed array. An answer is the matching careers' rank keys, in no order: each page puts only its own in
 * order (results-pages.ts). A caller pages the same answer once per request, so recent answers are kept (LRU). The
 * broadest one-word answers are made, in order, when the index is built (broadAnswers) and are not kept there.
 */

const EXACT = 4;
const BEGINNING = 3;
const TYPO_WORD = 2;
const TYPO_BEGINNING = 1;
const TYPO_MIN_LENGTH = 5;
const KIND_ORDER: Record<TitleKind, number> = { occupation: 0, alternate: 1, reported: 2 };
const RECENT_ANSWERS = 32;
/** How many careers a one-word query must match to have its answer made with the index (broadAnswers). */
export const BROAD_ANSWER = 64;

/**
 * Text as search compares it: lower case, then compatibility-decomposed with its marks dropped (in that order, as
 * lowering "İ" adds a mark). Printable ASCII, most titles, only needs lowering.
 */
function foldText(text: string): string {
  const lower = text.toLowerCase();
  return /^[ -~]*$/.test(lower) ? lower : lower.normalize('NFKD').replace(/\p{M}/gu, '');
}

/** The words search sees in text already folded. */
const wordsOfFolded = (folded: string): string[] =>
  folded
    .replace(/['\u2019]/g, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== '');

interface TitleIndex {
  /** The careers in title order; every other array is indexed by a career's place here. */
  careers: readonly Career[];
  placeOfId: Map<string, number>;
  /** 0, 1, 2…: every place, the keys of a search without a query or filters (shared by its results, never reordered). */
  everyPlace: Float64Array;
  /** The occupation's job zone, 0 when it has none. */
  jobZones: Uint8Array;
  /** Distinct folded words, sorted by code unit. */
  vocabulary: string[];
  /** Careers containing vocabulary[w]: postings[offsets[w] .. offsets[w + 1]). */
  offsets: Int32Array;
  postings: Int32Array;
  /** The other way, the words of the career at place p: titleWords[titleWordOffsets[p] .. titleWordOffsets[p + 1]). */
  titleWordOffsets: Int32Array;
  titleWords: Int32Array;
  longestWord: number;
  beginnings: BeginningTable;
  /**
   * Per place p, two numbers side by side, as a query reads both of each career it matches (each read elsewhere was a
   * cache miss in a server): slots[2p] is the query's tally (see tallyOf), zeroed again after each query, which run one
   * at a time; slots[2p + 1] is what the title gives the ranking (see titleRank).
   */
  slots: Int32Array;
  /** Per vocabulary word, how well the query word being checked matches it (0: not), zeroed again after it. */
  wordQuality: Uint8Array;
}

/** Rule 5's share of a rank key: catalogues up to 16 million titles (O*NET has about 50,000). */
const PLACES = 2 ** 24;

/**
 * A rank key is one number whose numeric order is the ranking, 52 bits: from the most significant, typos (rule 1, 8
 * bits), title words (rule 2, 8 bits), 1023 − score (rule 3, 10 bits), kind (rule 4, 2 bits), place (rule 5, 24 bits).
 */
const KIND_UNIT = PLACES;
const SCORE_UNIT = 4 * KIND_UNIT;
const WORDS_UNIT = 1024 * SCORE_UNIT;
const TYPOS_UNIT = 256 * WORDS_UNIT;

/** What a title gives the ranking, rules 2 and 4: its word count and its kind, in one number. */
const titleRank = (wordCount: number, kind: number): number => Math.min(wordCount, 255) * 4 + kind;

const rankKey = (typos: number, score: number, title: number, place: number): number =>
  Math.min(typos, 255) * TYPOS_UNIT +
  (title >>> 2) * WORDS_UNIT +
  (1023 - Math.min(score, 1023)) * SCORE_UNIT +
  (title & 3) * KIND_UNIT +
  place;

/**
 * A query's tally of a career, one number so one read: its score, plus CLEAN_TALLY for each query word matched without
 * a typo. A word's tally grows with how well it matched, so the best of a word's matches is the largest tally. Exact
 * for queries under 16,384 words, whose scores stay below CLEAN_TALLY (the route takes 200 characters).
 */
const CLEAN_TALLY = 2 ** 16;
const tallyOf = (quality: number): number => (quality >= BEGINNING ? quality + CLEAN_TALLY : quality);

/** The careers in title order (see the module's comment), each with its words. */
function inTitleOrder(careers: readonly Career[]): { career: Career; words: string[] }[] {
  return careers
    .map((career) => {
      const key = foldText(career.title);
      return { career, key, words: [...new Set(wordsOfFolded(key))] };
    })
    .sort(
      (a, b) =>
        compareCodeUnits(a.key, b.key) || compareCodeUnits(a.career.title, b.career.title) || compareCodeUnits(a.career.id, b.career.id),
    );
}

function buildIndex(catalogue: Catalogue): TitleIndex {
  const count = catalogue.careers.length;
  if (count > PLACES) throw new RangeError(`title search ranks at most ${PLACES} titles; the catalogue has ${count}`);
  const zoneOf = new Map(catalogue.occupations.map((occupation) => [occupation.code, occupation.jobZone ?? 0]));
  const ordered = inTitleOrder(catalogue.careers);
  const vocabulary = [...new Set(ordered.flatMap(({ words }) => words))].sort(compareCodeUnits);
  const wordId = new Map(vocabulary.map((word, id) => [word, id]));
  const offsets = new Int32Array(vocabulary.length + 1);
  for (const { words } of ordered) for (const word of words) offsets[wordId.get(word)! + 1]!++;
  for (let id = 0; id < vocabulary.length; id++) offsets[id + 1]! += offsets[id]!;
  const postings = new Int32Array(offsets[vocabulary.length]!);
  const filled = offsets.slice(0, vocabulary.length);
  // Careers are visited in title order, so each word's postings come out ascending.
  ordered.forEach(({ words }, place) => {
    for (const word of words) postings[filled[wordId.get(word)!]!++] = place;
  });
  const titleWordOffsets = new Int32Array(count + 1);
  const slots = new Int32Array(2 * count);
  ordered.forEach(({ career, words }, place) => {
    titleWordOffsets[place + 1] = titleWordOffsets[place]! + words.length;
    slots[2 * place + 1] = titleRank(words.length, KIND_ORDER[career.titleKind]);
  });
  const longestWord = vocabulary.reduce((longest, word) => Math.max(longest, word.length), 0);
  return {
    careers: ordered.map(({ career }) => career),
    placeOfId: new Map(ordered.map(({ career }, place) => [career.id, place])),
    everyPlace: Float64Array.from(ordered, (_, place) => place),
    jobZones: Uint8Array.from(ordered, ({ career }) => zoneOf.get(career.occupationCode) ?? 0),
    vocabulary,
    offsets,
    postings,
    titleWordOffsets,
    titleWords: Int32Array.from(
      ordered.flatMap(({ words }) => words),
      (word) => wordId.get(word)!,
    ),
    longestWord,
    beginnings: buildBeginningTable(vocabulary),
    slots,
    wordQuality: new Uint8Array(vocabulary.length),
  };
}

/** The first place within [from, to) of the sorted vocabulary whose word is not below `word`. */
function lowerBound(vocabulary: readonly string[], word: string, from: number, to: number): number {
  let [low, high] = [from, to];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (vocabulary[middle]! < word) low = middle + 1;
    else high = middle;
  }
  return low;
}

/**
 * Every beginning of the vocabulary's words (each the range of words that begin with it), filed by hash: a query
 * word's beginnings are looked up, not searched for in the sorted vocabulary, as a search there reads a dozen words
 * far apart. Typos are found by deletion (as SymSpell finds words): two strings one edit apart are, after deleting at
 * most one letter from each, the same string; the shorter is the longer with a letter deleted, or each with one
 * letter deleted is the same. So a beginning of TYPO_MIN_LENGTH - 1 letters or more (the shortest one edit from a
 * query word that gets typos) is also filed by the hash of each string one deletion makes of it; a query word looks
 * up the hash of itself and of each of its deletions. Two strings can share a hash, or a deletion, and be two edits
 * apart: each beginning found is checked. Typed arrays, built once.
 */
interface BeginningTable {
  /**
   * Entries of two numbers, by hash ascending: a hash, then the beginning filed under it. Side by side, as the three
   * numbers of a span: one memory read each, where a lookup's reads are all cache misses in a server.
   */
  filed: Uint32Array;
  /** The entries whose hash's top bits are b are [bucketStart[b], bucketStart[b + 1]): `hash >>> shift` is b. */
  bucketStart: Int32Array;
  shift: number;
  /**
   * Beginning b is spans[3b .. 3b + 3) = [from, to, units]: the first `units` code units of the vocabulary's words
   * [from, to), all the words that begin so.
   */
  spans: Int32Array;
}

/** FNV-1a of a word's first `length` code units, leaving out the one at `skip` (-1: none). */
function hashWithout(word: string, length: number, skip: number): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < length; i++) if (i !== skip) hash = Math.imul(hash ^ word.charCodeAt(i), 0x01000193);
  return hash >>> 0;
}

const commonPrefixLength = (a: string, b: string): number => {
  let length = 0;
  while (length < a.length && length < b.length && a.charCodeAt(length) === b.charCodeAt(length)) length++;
  return length;
};

/** Deleting either of two equal letters side by side makes the same string: the second is skipped. */
const sameDeletion = (word: string, skip: number): boolean => skip > 0 && word.charCodeAt(skip) === word.charCodeAt(skip - 1);

/** Files every beginning of a vocabulary sorted by code unit (each once), and its deletions where a typo can reach it. */
function buildBeginningTable(vocabulary: readonly string[]): BeginningTable {
  const spans: number[] = [];
  const [hashes, beginningOf]: [number[], number[]] = [[], []];
  vocabulary.forEach((word, id) => {
    // Beginnings the word shares with the word before it were filed with that word.
    for (let units = commonPrefixLength(word, vocabulary[id - 1] ?? '') + 1; units <= word.length; units++) {
      const beginning = spans.length / 3;
      spans.push(id, lowerBound(vocabulary, `${word.slice(0, units)}\uffff`, id, vocabulary.length), units);
      const lastSkip = units >= TYPO_MIN_LENGTH - 1 ? units - 1 : -1;
      for (let skip = -1; skip <= lastSkip; skip++) {
        if (sameDeletion(word, skip)) continue;
        hashes.push(hashWithout(word, units, skip));
        beginningOf.push(beginning);
      }
    }
  });
  const order = Array.from(hashes, (_, entry) => entry).sort((a, b) => hashes[a]! - hashes[b]!);
  const filed = new Uint32Array(2 * order.length);
  order.forEach((entry, at) => {
    filed[2 * at] = hashes[entry]!;
    filed[2 * at + 1] = beginningOf[entry]!;
  });
  // About one hash a bucket: a lookup reads two bounds and an entry or two, all near each other.
  const bits = Math.max(1, Math.ceil(Math.log2(order.length + 1)));
  const bucketStart = new Int32Array(2 ** bits + 1);
  for (const entry of order) bucketStart[(hashes[entry]! >>> (32 - bits)) + 1]!++;
  for (let bucket = 0; bucket < 2 ** bits; bucket++) bucketStart[bucket + 1]! += bucketStart[bucket]!;
  return { filed, bucketStart, shift: 32 - bits, spans: Int32Array.from(spans) };
}

/** The beginnings filed under a hash: each one's index is passed to `visit`. */
function forEachFiled(table: BeginningTable, hash: number, visit: (beginning: number) => void): void {
  const bucket = hash >>> table.shift;
  for (let at = table.bucketStart[bucket]!; at < table.bucketStart[bucket + 1]!; at++) {
    if (table.filed[2 * at] === hash) visit(table.filed[2 * at + 1]!);
  }
}

/** The vocabulary's words that begin with `word`, [from, to) (empty: none). */
function beginningWith(index: TitleIndex, word: string): [number, number] {
  const { beginnings, vocabulary } = index;
  let range: [number, number] = [0, 0];
  forEachFiled(beginnings, hashWithout(word, word.length, -1), (beginning) => {
    const { spans } = beginnings;
    const from = spans[3 * beginning]!;
    if (spans[3 * beginning + 2] === word.length && vocabulary[from]!.startsWith(word)) range = [from, spans[3 * beginning + 1]!];
  });
  return range;
}

/** Whether `a` and the first `bLength` units of `b` are exactly one edit apart (as the module's comment counts edits). */
function oneEditApart(a: string, b: string, bLength: number): boolean {
  let same = 0;
  while (same < a.length && same < bLength && a.charCodeAt(same) === b.charCodeAt(same)) same++;
  const restEqual = (i: number, j: number): boolean => {
    for (; i < a.length; i++, j++) if (a.charCodeAt(i) !== b.charCodeAt(j)) return false;
    return j === bLength;
  };
  if (a.length === bLength) {
    if (same === bLength) return false;
    const swapped = a.charCodeAt(same) === b.charCodeAt(same + 1) && a.charCodeAt(same + 1) === b.charCodeAt(same);
    return restEqual(same + 1, same + 1) || (swapped && restEqual(same + 2, same + 2));
  }
  if (bLength === a.length + 1) return restEqual(same, same + 1);
  return a.length === bLength + 1 && restEqual(same + 1, same);
}

/** The vocabulary's words a query word matches so far: how well each (0: not yet), and which they are. */
interface WordMatches {
  quality: Uint8Array;
  ids: number[];
}

/** Raises how well a word matches to `quality`, if that is better. */
function raise(matches: WordMatches, id: number, quality: number): void {
  if (matches.quality[id] === 0) matches.ids.push(id);
  if (matches.quality[id]! < quality) matches.quality[id] = quality;
}

/** Adds the vocabulary's words one typo from `queryWord`, or whose beginning is, to its matches. */
function typoMatches(index: TitleIndex, queryWord: string, matches: WordMatches): void {
  const { vocabulary, beginnings } = index;
  const typo = (beginning: number) => {
    const { spans } = beginnings;
    const [from, to, units] = [spans[3 * beginning]!, spans[3 * beginning + 1]!, spans[3 * beginning + 2]!];
    if (!oneEditApart(queryWord, vocabulary[from]!, units)) return;
    for (let id = from; id < to; id++) raise(matches, id, TYPO_BEGINNING);
    // The range's first word is the beginning itself when it is that long: a typo of the whole word.
    if (vocabulary[from]!.length === units) raise(matches, from, TYPO_WORD);
  };
  for (let skip = -1; skip < queryWord.length; skip++) {
    if (!sameDeletion(queryWord, skip)) forEachFiled(beginnings, hashWithout(queryWord, queryWord.length, skip), typo);
  }
}

/**
 * The vocabulary's words a query word matches, each with how well (its best way), in the index's `wordQuality`: the
 * caller reads `quality` of each of `ids` and sets it back to 0 before the next word.
 */
function wordMatches(index: TitleIndex, queryWord: string): WordMatches {
  const { vocabulary } = index;
  const matches: WordMatches = { quality: index.wordQuality, ids: [] };
  const [from, to] = beginningWith(index, queryWord);
  // Only the range's first word can be the query word itself (they are sorted): reading each word was a cache miss.
  for (let id = from; id < to; id++) raise(matches, id, BEGINNING);
  if (from < to && vocabulary[from]!.length === queryWord.length) raise(matches, from, EXACT);
  // A word longer than any title word by two or more cannot be one edit from a beginning of one.
  if (queryWord.length >= TYPO_MIN_LENGTH && queryWord.length <= index.longestWord + 1) typoMatches(index, queryWord, matches);
  return matches;
}

/** A query word's matches, copied out of `wordQuality`: the vocabulary's words, how well each, how many postings. */
interface QueryWord {
  ids: number[];
  qualities: number[];
  postings: number;
}

function queryWordOf(index: TitleIndex, word: string): QueryWord {
  const matches = wordMatches(index, word);
  const qualities = matches.ids.map((id) => matches.quality[id]!);
  let postings = 0;
  for (const id of matches.ids) {
    postings += index.offsets[id + 1]! - index.offsets[id]!;
    matches.quality[id] = 0;
  }
  return { ids: matches.ids, qualities, postings };
}

/**
 * Tallies in the index's slots, for every career, how well its title matches the query words. Answers the places
 * whose title matches them all, and every place it wrote to, for `clearTallies`.
 *
 * The query word with the fewest postings is read first, from its postings: the careers it finds are all that a
 * later word can keep. A later word is then checked against those careers' own words, a few each, not through its
 * postings: a word beginning such as "mana" has thousands, a two-word query rarely leaves more than a few dozen.
 */
function matchingCareers(index: TitleIndex, words: readonly string[]): { places: number[]; touched: number[] } {
  const { slots, wordQuality } = index;
  const [rarest, ...others] = words.map((word) => queryWordOf(index, word)).sort((a, b) => a.postings - b.postings);
  let places: number[] = [];
  rarest!.ids.forEach((id, i) => {
    const tally = tallyOf(rarest!.qualities[i]!);
    for (let at = index.offsets[id]!; at < index.offsets[id + 1]!; at++) {
      const place = index.postings[at]!;
      const before = slots[2 * place]!;
      if (before === 0) places.push(place);
      if (tally > before) slots[2 * place] = tally;
    }
  });
  const touched = places;
  for (const word of others) {
    if (places.length === 0) break;
    word.ids.forEach((id, i) => {
      wordQuality[id] = word.qualities[i]!;
    });
    places = places.filter((place) => {
      let quality = 0;
      for (let at = index.titleWordOffsets[place]!; at < index.titleWordOffsets[place + 1]!; at++) {
        quality = Math.max(quality, wordQuality[index.titleWords[at]!]!);
      }
      if (quality > 0) slots[2 * place]! += tallyOf(quality);
      return quality > 0;
    });
    for (const id of word.ids) wordQuality[id] = 0;
  }
  return { places, touched };
}

function clearTallies({ slots }: TitleIndex, touched: readonly number[]): void {
  for (const place of touched) slots[2 * place] = 0;
}

const unfiltered = (query: SearchQuery): boolean => query.jobZones === undefined && query.occupationCode === undefined;

function passesFilters(index: TitleIndex, query: SearchQuery): (place: number) => boolean {
  const zones = query.jobZones === undefined ? undefined : new Set<number>(query.jobZones);
  const code = query.occupationCode;
  return (place) =>
    (zones === undefined || zones.has(index.jobZones[place]!)) && (code === undefined || index.careers[place]!.occupationCode === code);
}

/** The matching careers' rank keys, in no order: a page puts its own in order. */
function ranked(index: TitleIndex, words: readonly string[], query: SearchQuery): Float64Array {
  const { places, touched } = matchingCareers(index, words);
  const { slots } = index;
  const kept = unfiltered(query) ? places : places.filter(passesFilters(index, query));
  const keys = new Float64Array(kept.length);
  for (let i = 0; i < kept.length; i++) {
    const place = kept[i]!;
    const tally = slots[2 * place]!;
    keys[i] = rankKey(words.length - Math.floor(tally / CLEAN_TALLY), tally % CLEAN_TALLY, slots[2 * place + 1]!, place);
  }
  clearTallies(index, touched);
  return keys;
}

/** Every career passing the filters, in title order: its place is its key. */
function filtered(index: TitleIndex, query: SearchQuery): Float64Array {
  return unfiltered(query) ? index.everyPlace : index.everyPlace.filter(passesFilters(index, query));
}

/**
 * The answers, in order, of the one-word queries that begin title words and match `atLeast` careers or more, made
 * with the index: the broadest queries ("man" matches thousands of titles), whose ranking was most of the search's
 * time in a server, and they are few (for O*NET 27.0 some 2,000 beginnings, 860,000 keys, 7 MB). A one-word answer
 * depends on the word alone, typos included. Each is ranked by the same code as any query; being in order, it is
 * shared by its results and never reordered (results-pages.ts).
 */
function broadAnswers(index: TitleIndex, atLeast: number): Map<string, Float64Array> {
  const answers = new Map<string, Float64Array>();
  const { spans } = index.beginnings;
  for (let beginning = 0; beginning < spans.length / 3; beginning++) {
    const [from, to, units] = [spans[3 * beginning]!, spans[3 * beginning + 1]!, spans[3 * beginning + 2]!];
    // Fewer postings of the words beginning so, and the query is narrow: typos may add a few careers, ranked when asked.
    if (index.offsets[to]! - index.offsets[from]! < atLeast) continue;
    const word = index.vocabulary[from]!.slice(0, units);
    const keys = ranked(index, [word], {});
    if (keys.length >= atLeast) answers.set(word, keys.sort());
  }
  return answers;
}

/**
 * The search of one catalogue: indexes its titles now (once), then answers each query with the matching careers
 * ranked as the module's comment says, a page at a time. `broadAnswerAtLeast` is for tests, which compare the
 * answers made with the index (broadAnswers) against the same queries' answers made when asked.
 */
export function titleSearch(catalogue: Catalogue, broadAnswerAtLeast = BROAD_ANSWER): (query: SearchQuery) => SearchResults {
  const index = buildIndex(catalogue);
  const broad = broadAnswers(index, broadAnswerAtLeast);
  const careers: KeyedCareers = {
    placeOfKey: (key) => key % PLACES,
    career: (place) => index.careers[place]!,
    placeOfId: (id) => index.placeOfId.get(id),
  };
  const recent = new Map<string, SearchResults>();
  return (query) => {
    const words = [...new Set(wordsOfFolded(foldText(query.query ?? '')))];
    const made = words.length === 1 && unfiltered(query) ? broad.get(words[0]!) : undefined;
    if (made !== undefined) return resultsByKey(made, true, careers);
    const zones = query.jobZones === undefined ? '*' : [...new Set<JobZone>(query.jobZones)].sort().join();
    // Words hold letters and digits only and zones digits: the tabs keep the parts apart.
    const key = `${words.join(' ')}\t${zones}\t${JSON.stringify(query.occupationCode ?? null)}`;
    const known = recent.get(key);
    if (known !== undefined) {
      recent.delete(key);
      recent.set(key, known);
      return known;
    }
    const answer =
      words.length === 0 ? resultsByKey(filtered(index, query), true, careers) : resultsByKey(ranked(index, words, query), false, careers);
    recent.set(key, answer);
    if (recent.size > RECENT_ANSWERS) recent.delete(recent.keys().next().value!);
    return answer;
  };
}
