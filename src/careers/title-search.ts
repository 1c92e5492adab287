import { compareCodeUnits } from '../support/code-units.js';
import type { Career, Catalogue, JobZone, SearchQuery, TitleKind } from './catalogue.js';

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
 * The index is a sorted vocabulary of folded words (a beginning is a range found by binary search; typos are found
 * by walking a trie of the vocabulary with the query word's edit-distance row, pruned where it exceeds one edit) and,
 * per word, the careers it occurs in as one typed array. The routes page the same list once
 * per request, so recent answers are kept (LRU).
 */

const EXACT = 4;
const BEGINNING = 3;
const TYPO_WORD = 2;
const TYPO_BEGINNING = 1;
const TYPO_MIN_LENGTH = 5;
const KIND_ORDER: Record<TitleKind, number> = { occupation: 0, alternate: 1, reported: 2 };
const RECENT_ANSWERS = 32;

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
  kinds: Uint8Array;
  wordCounts: Uint8Array;
  /** The occupation's job zone, 0 when it has none. */
  jobZones: Uint8Array;
  /** Distinct folded words, sorted by code unit. */
  vocabulary: string[];
  /** Careers containing vocabulary[w]: postings[offsets[w] .. offsets[w + 1]). */
  offsets: Int32Array;
  postings: Int32Array;
  longestWord: number;
  trie: WordTrie;
  /** Per place, what one query counts, zeroed again after it: allocated once, as queries run one at a time. */
  scratch: { matched: Uint16Array; best: Uint8Array; scores: Int32Array; typos: Uint16Array };
}

/** Rule 5's share of a rank key: catalogues up to 16 million titles (O*NET has about 50,000). */
const PLACES = 2 ** 24;

/** One number whose numeric order is the ranking (rules 1 to 5; rule 5 is the place in title order), 52 bits. */
const rankKey = (typos: number, wordCount: number, score: number, kind: number, place: number): number =>
  (((Math.min(typos, 255) * 256 + wordCount) * 1024 + (1023 - Math.min(score, 1023))) * 4 + kind) * PLACES + place;

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
  const longestWord = vocabulary.reduce((longest, word) => Math.max(longest, word.length), 0);
  return {
    careers: ordered.map(({ career }) => career),
    kinds: Uint8Array.from(ordered, ({ career }) => KIND_ORDER[career.titleKind]),
    wordCounts: Uint8Array.from(ordered, ({ words }) => Math.min(words.length, 255)),
    jobZones: Uint8Array.from(ordered, ({ career }) => zoneOf.get(career.occupationCode) ?? 0),
    vocabulary,
    offsets,
    postings,
    longestWord,
    trie: buildTrie(vocabulary, longestWord),
    scratch: { matched: new Uint16Array(count), best: new Uint8Array(count), scores: new Int32Array(count), typos: new Uint16Array(count) },
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

/** The places of the vocabulary's words that begin with `prefix`, [start, end), looked for within [from, to). */
function beginningWith(vocabulary: readonly string[], prefix: string, from: number, to: number): [number, number] {
  return [lowerBound(vocabulary, prefix, from, to), lowerBound(vocabulary, `${prefix}\uffff`, from, to)];
}

/**
 * The vocabulary as a trie, for typos: node 0 is the root; a node's children are in code-unit order, as are the
 * words, so the words below a node are one range of the vocabulary, [from, to). Typed arrays, built once.
 */
interface WordTrie {
  firstChild: Int32Array;
  nextSibling: Int32Array;
  /** The code unit leading to a node from its parent. */
  unit: Uint16Array;
  from: Int32Array;
  to: Int32Array;
  /** Edit-distance rows, one per depth, `width` cells each: allocated once, as queries run one at a time. */
  rows: Uint8Array;
  width: number;
}

const commonPrefixLength = (a: string, b: string): number => {
  let length = 0;
  while (length < a.length && length < b.length && a.charCodeAt(length) === b.charCodeAt(length)) length++;
  return length;
};

/** Builds the trie of a vocabulary sorted by code unit, whose words each extend the path of the one before. */
function buildTrie(vocabulary: readonly string[], longestWord: number): WordTrie {
  const size = 1 + vocabulary.reduce((nodes, word, id) => nodes + word.length - commonPrefixLength(word, vocabulary[id - 1] ?? ''), 0);
  const trie: WordTrie = {
    firstChild: new Int32Array(size).fill(-1),
    nextSibling: new Int32Array(size).fill(-1),
    unit: new Uint16Array(size),
    from: new Int32Array(size),
    to: new Int32Array(size),
    width: longestWord + 2,
    rows: new Uint8Array((longestWord + 3) * (longestWord + 2)),
  };
  // path[d]: the node of the previous word's first d units, so path[d + 1] is the last child of path[d] so far.
  const path = [0];
  let nodes = 1;
  vocabulary.forEach((word, id) => {
    const shared = commonPrefixLength(word, vocabulary[id - 1] ?? '');
    for (let depth = shared + 1; depth <= word.length; depth++) {
      const [node, parent] = [nodes++, path[depth - 1]!];
      trie.unit[node] = word.charCodeAt(depth - 1);
      trie.from[node] = id;
      if (depth < path.length) trie.nextSibling[path[depth]!] = node;
      else trie.firstChild[parent] = node;
      path.length = depth;
      path.push(node);
    }
    path.length = word.length + 1;
    for (const node of path) trie.to[node] = id + 1;
  });
  return trie;
}
/**
 * Walks the trie below `node` (at `depth`) with the optimal string alignment distance to `queryWord`: row d, cell j is
 * the distance between the node's first d units and the query word's first j. A branch whose row is all above 1 can
 * reach no word one edit away. A node at distance 1 from the whole query word begins a typo of it: every word below
 * matches (`covered` once marked), and the word the node ends, if any, is a typo of the whole word.
 */
function walkTypos(
  index: TitleIndex,
  queryWord: string,
  matches: Map<number, number>,
  node: number,
  depth: number,
  covered: boolean,
): void {
  const { trie, vocabulary } = index;
  const { rows, width, unit } = trie;
  const last = queryWord.length;
  const [row, above, twoAbove] = [depth * width, (depth - 1) * width, (depth - 2) * width];
  const here = unit[node]!;
  // The unit before this node's: every word below shares the node's path.
  const before = depth > 1 ? vocabulary[trie.from[node]!]!.charCodeAt(depth - 2) : -1;
  rows[row] = depth;
  let least = depth;
  // Only cells within one of the diagonal can be 1 or less; the cells either side of that band are set to 2, any
  // value above 1 serving the same, as the next rows read them.
  const [low, high] = [Math.max(1, depth - 1), Math.min(last, depth + 1)];
  if (low > 1) rows[row + low - 1] = 2;
  if (high < last) rows[row + high + 1] = 2;
  for (let j = low; j <= high; j++) {
    const unitJ = queryWord.charCodeAt(j - 1);
    let cell = Math.min(rows[above + j]! + 1, rows[row + j - 1]! + 1, rows[above + j - 1]! + (unitJ === here ? 0 : 1));
    if (j > 1 && here === queryWord.charCodeAt(j - 2) && before === unitJ) cell = Math.min(cell, rows[twoAbove + j - 2]! + 1);
    rows[row + j] = cell;
    if (cell < least) least = cell;
  }
  // At distance 0 the node is the query word: every word below already matched as a beginning.
  const whole = low <= last && high === last ? rows[row + last]! : 2;
  if (least > 1 || whole === 0) return;
  if (whole === 1) {
    const [from, to] = [trie.from[node]!, trie.to[node]!];
    if (!covered) for (let id = from; id < to; id++) if (!matches.has(id)) matches.set(id, TYPO_BEGINNING);
    if (vocabulary[from]!.length === depth && (matches.get(from) ?? 0) < TYPO_WORD) matches.set(from, TYPO_WORD);
    covered = true;
  }
  for (let child = trie.firstChild[node]!; child !== -1; child = trie.nextSibling[child]!) {
    walkTypos(index, queryWord, matches, child, depth + 1, covered);
  }
}

/** The vocabulary's words a query word matches, each with how well (its best way). */
function wordMatches(index: TitleIndex, queryWord: string): Map<number, number> {
  const { vocabulary, trie } = index;
  const matches = new Map<number, number>();
  const [from, to] = beginningWith(vocabulary, queryWord, 0, vocabulary.length);
  for (let id = from; id < to; id++) matches.set(id, vocabulary[id] === queryWord ? EXACT : BEGINNING);
  // A word longer than any title word by two or more cannot be one edit from a beginning of one.
  if (queryWord.length < TYPO_MIN_LENGTH || queryWord.length > index.longestWord + 1) return matches;
  for (let j = 0; j <= queryWord.length; j++) trie.rows[j] = j;
  for (let child = trie.firstChild[0]!; child !== -1; child = trie.nextSibling[child]!)
    walkTypos(index, queryWord, matches, child, 1, false);
  return matches;
}

/**
 * Counts in the scratch arrays, for every career, how well its title matches the query words. Answers the places (in
 * title order) whose title matches them all, and every place it wrote to, for `clearScratch`.
 */
function matchingCareers(index: TitleIndex, words: readonly string[]): { places: number[]; touched: number[] } {
  const { matched, best, scores, typos } = index.scratch;
  let places: number[] = [];
  let touched: number[] = [];
  for (let k = 0; k < words.length; k++) {
    places = [];
    for (const [id, quality] of wordMatches(index, words[k]!)) {
      for (let at = index.offsets[id]!; at < index.offsets[id + 1]!; at++) {
        const place = index.postings[at]!;
        if (matched[place] !== k) continue;
        if (best[place] === 0) places.push(place);
        if (quality > best[place]!) best[place] = quality;
      }
    }
    for (const place of places) {
      matched[place] = k + 1;
      scores[place]! += best[place]!;
      if (best[place]! < BEGINNING) typos[place]!++;
      best[place] = 0;
    }
    // Places matching a later word matched the first: the first word's places are all that was written.
    if (k === 0) touched = places;
    if (places.length === 0) break;
  }
  return { places, touched };
}

function clearScratch({ scratch }: TitleIndex, touched: readonly number[]): void {
  for (const place of touched) scratch.matched[place] = scratch.scores[place] = scratch.typos[place] = 0;
}

function passesFilters(index: TitleIndex, query: SearchQuery): (place: number) => boolean {
  const zones = query.jobZones === undefined ? undefined : new Set<number>(query.jobZones);
  const code = query.occupationCode;
  return (place) =>
    (zones === undefined || zones.has(index.jobZones[place]!)) && (code === undefined || index.careers[place]!.occupationCode === code);
}

function ranked(index: TitleIndex, words: readonly string[], query: SearchQuery): Career[] {
  const keep = passesFilters(index, query);
  const { places, touched } = matchingCareers(index, words);
  const { scores, typos } = index.scratch;
  const kept = places.filter(keep);
  // Plain loops over typed arrays: sorting numbers is several times faster than sorting by a comparator.
  const keys = new Float64Array(kept.length);
  for (let i = 0; i < kept.length; i++) {
    const place = kept[i]!;
    keys[i] = rankKey(typos[place]!, index.wordCounts[place]!, scores[place]!, index.kinds[place]!, place);
  }
  keys.sort();
  clearScratch(index, touched);
  const careers = new Array<Career>(keys.length);
  for (let i = 0; i < keys.length; i++) careers[i] = index.careers[keys[i]! - Math.floor(keys[i]! / PLACES) * PLACES]!;
  return careers;
}

function filtered(index: TitleIndex, query: SearchQuery): readonly Career[] {
  if (query.jobZones === undefined && query.occupationCode === undefined) return index.careers;
  const keep = passesFilters(index, query);
  return index.careers.filter((_, place) => keep(place));
}

/**
 * The search of one catalogue: indexes its titles now (once), then answers each query with the matching careers
 * ranked as the module's comment says. Answers are shared between callers: read them, never change them.
 */
export function titleSearch(catalogue: Catalogue): (query: SearchQuery) => readonly Career[] {
  const index = buildIndex(catalogue);
  const recent = new Map<string, readonly Career[]>();
  return (query) => {
    const words = [...new Set(wordsOfFolded(foldText(query.query ?? '')))];
    const zones = query.jobZones === undefined ? null : [...new Set<JobZone>(query.jobZones)].sort();
    const key = JSON.stringify([words, zones, query.occupationCode ?? null]);
    const known = recent.get(key);
    if (known !== undefined) {
      recent.delete(key);
      recent.set(key, known);
      return known;
    }
    const answer = words.length === 0 ? filtered(index, query) : ranked(index, words, query);
    recent.set(key, answer);
    if (recent.size > RECENT_ANSWERS) recent.delete(recent.keys().next().value!);
    return answer;
  };
}
