/**
 * Scale: the real server on a log of 43,000 completed assessments (as issue 23 measured) beside the same
 * server on an empty data directory, in the same run. A PATCH, a GET, a restart and the process's memory
 * should cost the same on both: nothing on the hot path or at start-up may grow with the log.
 *
 *   cd bench && npm run scale [-- --quick] [-- --rounds N]
 */
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { PROJECTED } from '../src/projector/progress.js';
import { untilReached } from '../test/support/eventually.js';
import { subjectBody } from './lib/api.js';
import { expectStatus, inParallel, jsonClient } from './lib/client.js';
import { generateLog, logFile } from './lib/generate-log.js';
import { CONNECTIONS, load, openAssessments, patchEvery } from './lib/load.js';
import { startNatureServer } from './lib/nature-server.js';
import { readOptions } from './lib/options.js';
import { tempDir } from './lib/paths.js';
import { heading, median, megabytes, num, ratio, table } from './lib/report.js';

const options = readOptions();
const ASSESSMENTS = options.quick ? 2_000 : 43_000;
/** A completed assessment writes 11 events (subject, reservation, start, 4 batches, scoring, publishing). */
const EVENTS_PER_ASSESSMENT = 11;
const TEMPLATES = options.quick ? 16 : 48;
/** Assessments answered per round on each server: enough PATCHes to take a rate from. */
const PATCHED = options.quick ? 100 : 600;
const GET_SECONDS = options.quick ? 1 : 3;

interface Figures {
  restartSeconds: number[];
  patchPerSecond: number[];
  getPerSecond: number[];
  peakRssKb: number[];
}

/** The read models' checkpoints, by lane, as the server last committed them. */
function checkpoints(dataDir: string): Map<string, string> {
  const read = new Database(join(dataDir, 'sandbox.read.db'), { readonly: true, fileMustExist: true });
  const rows = read.prepare<[], { projection: string; position: string }>('SELECT projection, position FROM projection_checkpoints').all();
  read.close();
  return new Map(rows.map((row) => [row.projection, row.position]));
}

/**
 * Until the first start on a generated log has done its work: the projections have read the whole log
 * (PROJECTED), and then the reactors' checkpoints, which PROJECTED does not follow, have stopped moving for
 * 2 s (a lane only writes one where it acts, so there is no end position to wait for). Fails only when the
 * projections stall, never because the machine is slow.
 */
async function caughtUp(dataDir: string): Promise<void> {
  const log = new Database(logFile(dataDir), { readonly: true });
  const last = log.prepare<[], { position: number | null }>('SELECT max(position) AS position FROM events').get()!.position ?? 0;
  log.close();
  if (last === 0) return;
  await untilReached(async () => Number(checkpoints(dataDir).get(PROJECTED) ?? 0), last);
  let seen = '';
  let movedAt = Date.now();
  while (Date.now() - movedAt < 2_000) {
    const now = JSON.stringify([...checkpoints(dataDir)]);
    if (now !== seen) {
      seen = now;
      movedAt = Date.now();
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** One round on one data directory: a timed start, then PATCHes, GETs and the peak memory, then a stop. */
async function round(dataDir: string, figures: Figures, tag: string): Promise<void> {
  const started = performance.now();
  const server = await startNatureServer({}, dataDir);
  figures.restartSeconds.push((performance.now() - started) / 1000);
  const client = jsonClient(server.url, server.key, CONNECTIONS);
  const headers = { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' };
  try {
    const subjects = await inParallel(
      Array.from({ length: PATCHED }, (_, n) => n),
      CONNECTIONS,
      async (n) => (await expectStatus(client.call('POST', '/v1/nature/subjects', subjectBody(`${tag}-${n}`)), 201, 'create')).id as string,
    );
    const assessments = await openAssessments(client, subjects);
    figures.patchPerSecond.push((await patchEvery(server.url, headers, assessments)).perSecond);
    figures.getPerSecond.push(
      (await load({ url: `${server.url}/v1/nature/subjects/${subjects[0]}`, headers, duration: GET_SECONDS })).perSecond,
    );
    figures.peakRssKb.push(server.peakRssKb() ?? Number.NaN);
  } finally {
    client.close();
    await server.stop();
  }
}

const big = tempDir('nature-bench-scale-big-');
const empty = tempDir('nature-bench-scale-empty-');
try {
  const generated = await generateLog(big.path, ASSESSMENTS * EVENTS_PER_ASSESSMENT, TEMPLATES);
  process.stderr.write(`scale: ${generated.events} events (${generated.assessments} assessments) generated; first start catching up\n`);
  // Not measured: the first start on the generated log projects it; the empty directory gets its stores.
  for (const dir of [big.path, empty.path]) {
    const server = await startNatureServer({}, dir);
    await caughtUp(dir).finally(() => server.stop());
  }
  const figures: Record<'empty' | 'big', Figures> = {
    empty: { restartSeconds: [], patchPerSecond: [], getPerSecond: [], peakRssKb: [] },
    big: { restartSeconds: [], patchPerSecond: [], getPerSecond: [], peakRssKb: [] },
  };
  for (let r = 0; r < options.rounds; r++) {
    // The order alternates, so a drift in the machine's load does not always favour one side.
    const order = r % 2 === 0 ? (['empty', 'big'] as const) : (['big', 'empty'] as const);
    for (const side of order) await round(side === 'big' ? big.path : empty.path, figures[side], `scale-r${r}-${side}`);
    process.stderr.write(`scale: round ${r + 1}/${options.rounds} done\n`);
  }

  const rate = (side: 'empty' | 'big', key: keyof Figures) => median(figures[side][key]);
  const row = (what: string, key: keyof Figures, show: (value: number) => string, goal: string) => [
    what,
    show(rate('empty', key)),
    show(rate('big', key)),
    ratio(rate('big', key), rate('empty', key)),
    goal,
  ];
  console.log(
    heading(
      'Scale: a big log against an empty one',
      `The real server (synchronous=FULL, LOG_LEVEL=info to a file) on a data directory holding ${generated.assessments} completed ` +
        `assessments (${generated.events} events; generated as the rebuild benchmark does) and on an empty one, taking turns. ` +
        `Per round and side: a start (spawn to /healthz answering), ${PATCHED} subjects each answered in 4 PATCHes of 19 ` +
        `(${CONNECTIONS} connections), GET of one subject for ${GET_SECONDS} s, then the process's peak RSS. Median of ${options.rounds} round(s).`,
    ),
  );
  console.log(
    table(
      ['figure', 'empty log', `${generated.assessments} assessments`, 'big / empty', 'goal'],
      [
        row('PATCH of 19 answers, req/s', 'patchPerSecond', num, 'hold (≈ 1)'),
        row('GET /v1/nature/subjects/{id}, req/s', 'getPerSecond', num, 'hold (≈ 1)'),
        row('restart, s', 'restartSeconds', (seconds) => seconds.toFixed(2), 'hold (≈ 1)'),
        row('peak RSS', 'peakRssKb', megabytes, 'hold (≈ 1)'),
      ],
    ),
  );
} finally {
  big.cleanup();
  empty.cleanup();
}
