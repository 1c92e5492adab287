/**
 * The Careers API's speed goals (issue 43), in one run on this machine, against the O*NET release at NATURE_ONET_DIR
 * (default: the shared copy beside the checkout; it is reference data, never committed):
 *
 * - import: `nature careers import` of the release, as an operator runs it, beside a running server (< 60 s);
 * - memory: the server's resident set once it picked the catalogue up, against the same server before (≤ +80 MB);
 * - search: GET /v1/careers?query=… against GET /v1/nature/items, requests per second (≥ 0.5);
 * - match: POST /v1/careers/matches over every occupation, server CPU per request (≤ 2 ms at p50); and in process,
 *   the match alone, CPU per call at p50 and p99.
 *
 * Search queries are made at run time from the release's own titles: word beginnings and one-typo words, a few
 * hundred distinct ones in turn, so the server's cache of recent answers does not answer them all.
 *
 *   cd bench && npm run careers [-- --quick] [-- --rounds N]
 */

import { execFileSync } from 'node:child_process';
import { buildCatalogue } from '../src/careers/build-catalogue.js';
import { indexCatalogue } from '../src/careers/careers-index.js';
import { intelligences, natures } from '../src/scoring/constructs.js';
import { onetDir, onetFiles, onetMissing } from '../test/support/onet-release.js';
import { everyResult } from '../test/support/search-results.js';
import { CONNECTIONS, type CpuSample, load, withCpu } from './lib/load.js';
import { startNatureServer } from './lib/nature-server.js';
import { readOptions } from './lib/options.js';
import { root } from './lib/paths.js';
import { procStatusKb } from './lib/processes.js';
import { heading, median, num, quantile, ratio, routeColumns, routeHeader, table } from './lib/report.js';

const options = readOptions();
/**
 * Short loads, many rounds: each route runs 1 s at a time, the four in turn, so a change in what else this shared
 * machine runs falls on every route alike; each figure is the median over the rounds. A search ratio is taken within
 * each round, the search against the item bank loaded earlier in that round, then the median of those: the machine's
 * load swings from one second to the next, and a ratio of two medians would set a busy round's search against a quiet
 * round's item bank.
 */
const SECONDS = 1;
const ROUNDS = options.roundsGiven || options.quick ? options.rounds : 15;
const QUERIES = 400;
/** Queries a caller's users repeat (the first of QUERIES): fewer than the server's cache of recent answers holds. */
const REPEATED = 10;
const PROFILES = 200;
const IN_PROCESS_MATCHES = options.quick ? 500 : 3000;

if (onetMissing) {
  console.error(`careers bench: no O*NET release at ${onetDir}; set NATURE_ONET_DIR to a release's text folder`);
  process.exit(1);
}

/** A deterministic stream of numbers in [0, 1): the same queries and profiles in every run. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Queries as a caller types them: the start of a title word, a whole word with one letter dropped, two words. */
function searchQueries(titles: readonly string[]): string[] {
  const random = seeded(43);
  const words = [...new Set(titles.flatMap((title) => title.toLowerCase().match(/[a-z]{5,}/g) ?? []))];
  const pick = () => words[Math.floor(random() * words.length)]!;
  const queries = new Set<string>();
  while (queries.size < QUERIES) {
    const word = pick();
    const kind = queries.size % 3;
    if (kind === 0) queries.add(word.slice(0, 3 + Math.floor(random() * 3)));
    else if (kind === 1) {
      const at = 1 + Math.floor(random() * (word.length - 2));
      queries.add(word.slice(0, at) + word.slice(at + 1));
    } else queries.add(`${pick().slice(0, 4)} ${word}`);
  }
  return [...queries];
}

/** Profiles as the scorer makes them: each score a multiple of 0.0625. */
function randomProfiles(count: number) {
  const random = seeded(7);
  const scores = <K extends string>(names: readonly K[]) =>
    Object.fromEntries(names.map((name) => [name, Math.floor(random() * 17) / 16])) as Record<K, number>;
  return Array.from({ length: count }, () => ({ natures: scores(natures), intelligences: scores(intelligences) }));
}

/** The match alone, in this process: CPU time per call (process.cpuUsage, µs). */
function inProcessMatch() {
  const started = performance.now();
  const index = indexCatalogue(buildCatalogue(onetFiles(), '27.0'));
  const built = performance.now() - started;
  const profiles = randomProfiles(PROFILES);
  for (let i = 0; i < 200; i++) index.match(profiles[i % PROFILES]!, { limit: 20 });
  const micros: number[] = [];
  for (let i = 0; i < IN_PROCESS_MATCHES; i++) {
    const before = process.cpuUsage();
    index.match(profiles[i % PROFILES]!, { limit: 20 });
    const spent = process.cpuUsage(before);
    micros.push(spent.user + spent.system);
  }
  // Title order, as the queries have always been made from it.
  const titles = everyResult(index.search({})).map((career) => career.title);
  return { built, p50: quantile(micros, 0.5), p99: quantile(micros, 0.99), titles };
}

const inProcess = inProcessMatch();
const queries = searchQueries(inProcess.titles);
const profileBodies = randomProfiles(PROFILES).map((profile) => JSON.stringify({ profile, limit: 20 }));

const server = await startNatureServer({}, undefined, ['careers:read', 'nature:read']);
const headers = { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' };
const rss = () => procStatusKb(server.pid, 'VmRSS');
const routeSamples = () => ({ items: [] as CpuSample[], search: [] as CpuSample[], repeated: [] as CpuSample[], match: [] as CpuSample[] });
const samples = routeSamples();
const firstRound = routeSamples();
let figures: { importSeconds: number; rssBefore?: number; rssAfter?: number };
try {
  await load({ url: `${server.url}/v1/nature/items`, headers, duration: 1 });
  const rssBefore = rss();
  const importStarted = performance.now();
  execFileSync(process.execPath, ['bin/nature.js', 'careers', 'import', onetDir], {
    cwd: root,
    env: { ...process.env, NATURE_DATA_DIR: server.dataDir },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const importSeconds = (performance.now() - importStarted) / 1000;
  // The server picks the new catalogue up by itself: until then the careers routes answer 503.
  while ((await fetch(`${server.url}/v1/careers?limit=1`, { headers })).status !== 200) await new Promise((r) => setTimeout(r, 200));
  let query = 0;
  let body = 0;
  // `distinct` queries in turn: all of them, or the first few, which the server's cache of recent answers then holds.
  const search = (distinct: number) => () =>
    load({
      url: server.url,
      headers,
      duration: SECONDS,
      requests: [
        {
          setupRequest: (request) => ({
            ...request,
            path: `/v1/careers?query=${encodeURIComponent(queries[query++ % distinct]!)}`,
          }),
        },
      ],
    });
  const match = () =>
    load({
      url: server.url,
      headers,
      duration: SECONDS,
      requests: [
        {
          method: 'POST',
          path: '/v1/careers/matches',
          setupRequest: (request) => ({ ...request, body: profileBodies[body++ % PROFILES] }),
        },
      ],
    });
  const round = async (into: typeof samples) => {
    into.items.push(await withCpu(server, () => load({ url: `${server.url}/v1/nature/items`, headers, duration: SECONDS })));
    into.search.push(await withCpu(server, search(QUERIES)));
    into.repeated.push(await withCpu(server, search(REPEATED)));
    into.match.push(await withCpu(server, match));
  };
  // A first round, not counted: the server's first seconds with a new catalogue run slower (its code is compiled, its
  // answers' JSON made, its heap grows), and the goals are about a server that has run a while. Reported apart.
  await round(firstRound);
  process.stderr.write(
    `careers: first round, not counted: item bank ${num(firstRound.items[0]!.perSecond)}/s, search ${num(firstRound.search[0]!.perSecond)}/s\n`,
  );
  figures = { importSeconds, rssBefore, rssAfter: rss() };
  for (let counted = 0; counted < ROUNDS; counted++) {
    await round(samples);
    const [items, search] = [samples.items.at(-1)!.perSecond, samples.search.at(-1)!.perSecond];
    process.stderr.write(
      `careers: round ${counted + 1}/${ROUNDS} done: item bank ${num(items)}/s, search ${num(search)}/s (${ratio(search, items)})\n`,
    );
  }
} finally {
  await server.stop();
}

/** A route's rate over the item bank's in the same round: the median over the rounds, and the lowest and highest. */
const perItemBank = (row: 'search' | 'repeated') => {
  const ratios = samples[row].map((sample, round) => sample.perSecond / samples.items[round]!.perSecond).filter(Number.isFinite);
  return `${ratio(median(ratios), 1)} (rounds ${ratio(Math.min(...ratios), 1)}–${ratio(Math.max(...ratios), 1)})`;
};
const cpu = (row: keyof typeof samples) => median(samples[row].map((sample) => sample.cpuMicrosPerRequest));
const mb = (kb: number | undefined) => (kb === undefined ? '—' : `${num(kb / 1024)} MB`);
console.log(
  heading(
    'Careers API: import, memory, search and matching',
    `The O*NET release at ${onetDir}; the real server, compiled, on the SQLite default; autocannon, ${CONNECTIONS} connections, ` +
      `${SECONDS} s per route, median of ${ROUNDS} round(s) after one not counted; ${QUERIES} distinct search queries (the default page of 10) and ${PROFILES} profiles (limit 20) in turn. ` +
      `Server CPU per request: the process's user + system time (/proc, 10 ms ticks) over the run, per 2xx response.`,
  ),
);
console.log(
  table(
    routeHeader,
    (['items', 'search', 'repeated', 'match'] as const).map((row) => [
      {
        items: 'GET /v1/nature/items',
        search: `GET /v1/careers?query=…, ${QUERIES} distinct queries`,
        repeated: `GET /v1/careers?query=…, ${REPEATED} queries repeated`,
        match: 'POST /v1/careers/matches (inline profile)',
      }[row],
      ...routeColumns(samples[row]),
    ]),
  ),
);
console.log();
console.log(
  table(
    ['figure', 'measured', 'goal'],
    [
      [`search req/s / item bank req/s in the same round, ${QUERIES} distinct queries`, perItemBank('search'), '≥ 0.5'],
      [`search req/s / item bank req/s in the same round, ${REPEATED} queries repeated`, perItemBank('repeated'), '≥ 0.5'],
      [
        `the same, ${QUERIES} distinct queries, in the first round after the import (not counted)`,
        ratio(firstRound.search[0]!.perSecond, firstRound.items[0]!.perSecond),
        '',
      ],
      ['match: server CPU per request (mean, HTTP included)', `${num(cpu('match') / 1000)} ms`, '≤ 2 ms at p50'],
      ['match alone, in process: CPU per call p50 / p99', `${num(inProcess.p50 / 1000)} / ${num(inProcess.p99 / 1000)} ms`, ''],
      ['import of the release (wall time, CLI process)', `${num(figures.importSeconds)} s`, '< 60 s'],
      ['server RSS: before import → catalogue loaded', `${mb(figures.rssBefore)} → ${mb(figures.rssAfter)}`, ''],
      [
        'server RSS growth with the catalogue loaded',
        figures.rssBefore === undefined || figures.rssAfter === undefined ? '—' : mb(figures.rssAfter - figures.rssBefore),
        '≤ +80 MB',
      ],
      ['build + index in process (parse, derive, index)', `${num(inProcess.built / 1000)} s`, ''],
    ],
  ),
);
