/**
 * How well situations are read (issue 44): the labelled set `situations.json` (each text with the 1–3 constructs a
 * careful rater says it draws on most), read by the method (src/situational/reading.ts) and by a baseline, a plain
 * keyword match of the same lexicons' words (whole words only, every one counting 1: no beginnings, phrases, weights,
 * negation or intensity), each naming up to three constructs by the same rule; and two variants of the method whose
 * English lexicon is expanded through WordNet (lib/wordnet.ts). Figures:
 * - precision@3: of the constructs a reader names, the share the rater named (goal ≥ 0.6, above the baseline);
 * - recall@3: per situation, the share of the rater's constructs the reader names, averaged;
 * - unread: situations a reader names nothing for;
 * - CPU per reading, in this process (goal ≤ 20 ms);
 * - what loading the method costs a fresh process: resident memory once both lexicons are compiled (goal ≤ +150 MB),
 *   and the CPU of each language's first reading, which compiles its lexicon.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { type Construct, constructs } from '../src/scoring/constructs.js';
import type { Language } from '../src/scoring/languages.js';
import { compileLexicon, foldedWords, type Lexicon } from '../src/situational/lexicon.js';
import { englishLexicon } from '../src/situational/lexicon-en.js';
import { frenchLexicon } from '../src/situational/lexicon-fr.js';
import { drawsOnMost, readSituation, readWith, SATURATION } from '../src/situational/reading.js';
import { heading, num, quantile, table } from './lib/report.js';
import { cosine, loadWordVectors } from './lib/word-vectors.js';
import { synonyms } from './lib/wordnet.js';

interface Situation {
  id: string;
  language: Language;
  text: string;
  constructs: Construct[];
}

const situations = JSON.parse(readFileSync(new URL('situations.json', import.meta.url), 'utf8')) as Situation[];

/** The baseline's keywords: each lexicon's one-word terms as whole words. */
function keywordsOf(lexicon: Lexicon): Map<string, Construct[]> {
  const keywords = new Map<string, Construct[]>();
  for (const construct of constructs) {
    for (const term of [...lexicon[construct].strong, ...lexicon[construct].related]) {
      const words = foldedWords(term.replace(/\*$/, ''));
      if (words.length !== 1) continue;
      keywords.set(words[0]!, [...(keywords.get(words[0]!) ?? []), construct]);
    }
  }
  return keywords;
}

const method = (situation: Situation) => readSituation(situation.text, situation.language).drawsOnMost;
const plain = (situation: Situation) => baseline(situation.text, situation.language);

const keywords: Record<Language, Map<string, Construct[]>> = { en: keywordsOf(englishLexicon), fr: keywordsOf(frenchLexicon) };

function baseline(text: string, language: Language): Construct[] {
  const counts = Object.fromEntries(constructs.map((construct) => [construct, 0])) as Record<Construct, number>;
  for (const word of foldedWords(text)) for (const construct of keywords[language].get(word) ?? []) counts[construct]++;
  return drawsOnMost(counts);
}

/**
 * A variant: the English lexicon with, for each of its whole words (and each beginning that is a word itself), the
 * WordNet synonyms of its `senses` most frequent senses added as related terms of the same construct, unless a
 * lexicon already has them.
 */
function expandedThroughWordNet(lexicon: Lexicon, senses: number): Lexicon {
  const known = new Set(
    Object.values(lexicon).flatMap(({ strong, related }) => [...strong, ...related].map((term) => term.replace(/\*$/, ''))),
  );
  const expanded = structuredClone(lexicon) as Record<Construct, { strong: string[]; related: string[] }>;
  for (const construct of constructs) {
    for (const term of [...lexicon[construct].strong, ...lexicon[construct].related]) {
      // WordNet writes a phrase with underscores.
      for (const synonym of synonyms(term.replace(/\*$/, '').replaceAll(' ', '_'), senses)) {
        if (known.has(synonym) || !/^[a-z]+( [a-z]+){0,2}$/.test(synonym)) continue;
        known.add(synonym);
        expanded[construct].related.push(synonym);
      }
    }
  }
  return expanded;
}

const termCount = (lexicon: Lexicon) =>
  Object.values(lexicon).reduce((sum, { strong, related }) => sum + strong.length + related.length, 0);

const wordNetReaders = [1, 2].map((senses) => {
  const expanded = expandedThroughWordNet(englishLexicon, senses);
  const compiled = compileLexicon(expanded);
  const added = termCount(expanded) - termCount(englishLexicon);
  const reader = (situation: Situation) =>
    situation.language === 'en' ? readWith(compiled, situation.text, 'en').drawsOnMost : method(situation);
  return [`the same, English lexicon + ${added} WordNet synonyms (${senses} sense${senses === 1 ? '' : 's'})`, reader] as const;
});

/**
 * Variants with English word vectors: each construct's centroid is the mean of its lexicon words' vectors (related
 * ones at half weight); a word of the text, not among the 300 most frequent, whose vector's cosine with a centroid
 * reaches `threshold` adds `weight` × cosine to that construct's sum, beside the lexicon's (before the saturation;
 * negation and intensity do not act on these).
 */
const termWords = (lexicon: Lexicon, construct: Construct, tier: 'strong' | 'related') =>
  lexicon[construct][tier].flatMap((term) => foldedWords(term.replace(/\*$/, '')));
const vectors = loadWordVectors(
  new Set([
    ...situations.flatMap((situation) => (situation.language === 'en' ? foldedWords(situation.text) : [])),
    ...constructs.flatMap((construct) => [
      ...termWords(englishLexicon, construct, 'strong'),
      ...termWords(englishLexicon, construct, 'related'),
    ]),
  ]),
  300,
);
const centroids = new Map(
  constructs.map((construct) => {
    const sum = new Float32Array(100);
    for (const [tier, weight] of [
      ['strong', 1],
      ['related', 0.5],
    ] as const) {
      for (const word of termWords(englishLexicon, construct, tier)) {
        const vector = vectors.vector(word);
        if (vector !== undefined) for (let i = 0; i < sum.length; i++) sum[i]! += weight * vector[i]!;
      }
    }
    const length = Math.hypot(...sum);
    if (length === 0) throw new Error(`no vector for any word of ${construct}'s lexicon`);
    return [construct, sum.map((value) => value / length)] as const;
  }),
);

function withVectors(threshold: number, weight: number) {
  return (situation: Situation): Construct[] => {
    if (situation.language !== 'en') return method(situation);
    const { demand } = readSituation(situation.text, 'en');
    const sums = new Map(constructs.map((c) => [c, -SATURATION * Math.log(Math.max(1e-9, 1 - demand[c]))]));
    for (const word of foldedWords(situation.text)) {
      const vector = vectors.common.has(word) ? undefined : vectors.vector(word);
      if (vector === undefined) continue;
      for (const [construct, centroid] of centroids) {
        const similarity = cosine(vector, centroid);
        if (similarity >= threshold) sums.set(construct, sums.get(construct)! + weight * similarity);
      }
    }
    return drawsOnMost(
      Object.fromEntries(constructs.map((c) => [c, 1 - Math.exp(-sums.get(c)! / SATURATION)])) as Record<Construct, number>,
    );
  };
}

const vectorReaders = (
  [
    [0.5, 0.5],
    [0.6, 0.2],
    [0.7, 0.2],
  ] as const
).map(
  ([threshold, weight]) =>
    [`the same + English word vectors (cosine ≥ ${threshold}, weight ${weight})`, withVectors(threshold, weight)] as const,
);

interface Figures {
  precision: number;
  recall: number;
  unread: number;
  count: number;
}

function score(named: (situation: Situation) => Construct[], among: readonly Situation[]): Figures {
  let [right, given, recall, unread] = [0, 0, 0, 0];
  for (const situation of among) {
    const names = named(situation);
    const hits = names.filter((construct) => situation.constructs.includes(construct)).length;
    right += hits;
    given += names.length;
    recall += hits / situation.constructs.length;
    if (names.length === 0) unread++;
  }
  return { precision: given === 0 ? 0 : right / given, recall: recall / among.length, unread, count: among.length };
}

/** The parts of the set the figures are given for: each language, the whole, and the halves MOST_SHARE was and was not chosen on. */
const idNumber = (situation: Situation) => Number(situation.id.slice(3));
const parts: [string, (situation: Situation) => boolean][] = [
  ['en', (situation) => situation.language === 'en'],
  ['fr', (situation) => situation.language === 'fr'],
  ['both', () => true],
  ['odd ids (share chosen on)', (situation) => idNumber(situation) % 2 === 1],
  ['even ids (held out)', (situation) => idNumber(situation) % 2 === 0],
];
const variants = [...wordNetReaders, ...vectorReaders];

const rows: string[][] = [];
for (const [part, holds] of parts) {
  const among = situations.filter(holds);
  // The variants change the English reading only: in French they are the method.
  for (const [name, reader] of [
    ['situational-v1 (lexicons, negation, intensity)', method],
    ...(part === 'fr' ? [] : variants),
    ['baseline: plain keyword match', plain],
  ] as const) {
    const figures = score(reader, among);
    rows.push([part, String(figures.count), name, figures.precision.toFixed(2), figures.recall.toFixed(2), String(figures.unread)]);
  }
}

// CPU per reading: every situation read 20 times, then a 4,000-character text (the longest the API takes) 50 times.
for (const situation of situations) readSituation(situation.text, situation.language);
const micros: number[] = [];
for (let round = 0; round < 20; round++) {
  for (const situation of situations) {
    const before = process.cpuUsage();
    readSituation(situation.text, situation.language);
    const spent = process.cpuUsage(before);
    micros.push(spent.user + spent.system);
  }
}
const longest = 'Leading a team of nurses through a night shift, calming frightened patients and their families. '
  .repeat(42)
  .slice(0, 4000);
const before = process.cpuUsage();
for (let i = 0; i < 50; i++) readSituation(longest, 'en');
const longestCpu = process.cpuUsage(before);

// Loading, in a fresh process: what the server pays on its first situational request (lexicons compile lazily).
const loading = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--expose-gc',
    '--input-type=module',
    '-e',
    `globalThis.gc();
const before = process.memoryUsage().rss;
const { readSituation } = await import('../src/situational/reading.js');
const cpu = (read) => { const start = process.cpuUsage(); read(); const spent = process.cpuUsage(start); return (spent.user + spent.system) / 1000; };
const en = cpu(() => readSituation('Teaching a child to swim in a cold lake.', 'en'));
const fr = cpu(() => readSituation('Apprendre à nager à un enfant qui a peur.', 'fr'));
globalThis.gc();
console.log(JSON.stringify({ rss: (process.memoryUsage().rss - before) / 1e6, en, fr }));`,
  ],
  { cwd: new URL('.', import.meta.url), encoding: 'utf8' },
);
if (loading.status !== 0) throw new Error(`the loading probe failed: ${loading.stderr}`);
const load = JSON.parse(loading.stdout) as { rss: number; en: number; fr: number };

console.log(
  heading(
    'Situational reading: the labelled set',
    `${situations.length} labelled situations (bench/situations.json); a reader names up to 3 constructs, each at least 0.6 of the highest demand (the baseline: count), as drawsOnMost does.`,
  ),
);
console.log(table(['situations', 'count', 'reader', 'precision@3', 'recall@3', 'unread'], rows));
console.log(
  table(
    ['figure', 'measured', 'goal'],
    [
      ['CPU per reading, the labelled texts: p50 / p99', `${num(quantile(micros, 0.5))} / ${num(quantile(micros, 0.99))} µs`, ''],
      ['CPU per reading, a 4,000-character text', `${num((longestCpu.user + longestCpu.system) / 50)} µs`, '≤ 20 ms'],
      ['CPU of the first reading, English / French (compiles its lexicon)', `${load.en.toFixed(1)} / ${load.fr.toFixed(1)} ms`, '≤ 20 ms'],
      ['resident memory once both lexicons are loaded (a fresh process)', `+${load.rss.toFixed(1)} MB`, '≤ +150 MB'],
    ],
  ),
);
