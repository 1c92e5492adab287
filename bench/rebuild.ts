/**
 * Rebuild: a log of ≥ 100k events of completed assessments (as the service writes them, personal fields
 * sealed), replayed into fresh read models by the Projector over every projection, as the server does at
 * start-up with an empty read-model file; beside a raw scan of the same file (SELECT * + JSON.parse of
 * data and metadata), the most any replay could hope for. Each round runs the three, the order rotating;
 * figures are medians.
 *
 *   cd bench && npm run rebuild [-- --quick] [-- --rounds N]
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { SqliteReadModelStore } from '../src/adapters/sqlite/read-model-store.js';
import { indexedFields, projections } from '../src/projections/index.js';
import { Projector } from '../src/projector/projector.js';
import { loadConfig } from '../src/settings/config.js';
import { openLog } from '../src/wiring/environments.js';
import { generateLog, logFile } from './lib/generate-log.js';
import { readOptions } from './lib/options.js';
import { tempDir } from './lib/paths.js';
import { heading, median, num, ratio, table } from './lib/report.js';

const options = readOptions();
const TARGET_EVENTS = options.quick ? 10_000 : 100_000;
const TEMPLATES = options.quick ? 16 : 48;
/**
 * Rounds stop early (after the first) once this much time has gone on them: a replay of 100k events
 * takes a minute at 0.02 of the raw scan's speed and a second at the goal, so the number of rounds that
 * fit in the ~2 minutes a benchmark may take varies with the code under test. `--rounds N` runs N regardless.
 */
const ROUNDS_BUDGET_S = options.quick ? 20 : 75;

interface Run {
  seconds: number;
  /** CPU seconds of the whole process (every thread) and of its main thread alone, over the pass. */
  cpu: number;
  mainCpu: number;
  /** Documents in the read models afterwards, by collection (a check that the replay did its work). */
  documents?: Record<string, number>;
}

const processCpu = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1e6;
};

/** CPU seconds of this process's main thread (Linux: its task's utime + stime, in clock ticks of 1/100 s). */
function mainThreadCpu(): number {
  const fields = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Wall time and CPU of `pass`. */
async function measured(pass: () => Promise<Omit<Run, 'seconds' | 'cpu' | 'mainCpu'>>): Promise<Run> {
  const [cpu, main, started] = [processCpu(), mainThreadCpu(), performance.now()];
  const run = await pass();
  return { ...run, seconds: (performance.now() - started) / 1000, cpu: processCpu() - cpu, mainCpu: mainThreadCpu() - main };
}

/** SELECT * over the whole log and JSON.parse of each event's data and metadata: the floor of any replay. */
function rawScan(file: string): Promise<Run> {
  return measured(async () => scanned(file));
}

function scanned(file: string) {
  const db = new Database(file, { readonly: true });
  let fields = 0;
  for (const row of db.prepare<[], { data: string; metadata: string }>('SELECT * FROM events ORDER BY position').iterate()) {
    fields += Object.keys(JSON.parse(row.data) as object).length + Object.keys(JSON.parse(row.metadata) as object).length;
  }
  db.close();
  if (fields === 0) throw new Error('the raw scan read nothing');
  return {};
}

/** Every projection rebuilt from the log into an empty read-model file, as the server's Projector does it. */
async function replay(dataDir: string, lastPosition: bigint, withIndexes: boolean): Promise<Run> {
  const scratch = tempDir('nature-bench-read-');
  const config = loadConfig({ NATURE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  const { sealedLog, dataKeys } = await openLog(config, 'test');
  const readFile = join(scratch.path, 'read.db');
  // As the server opens it (NORMAL: read models are rebuilt from the log), with or without its indexes.
  const readModels = new SqliteReadModelStore(readFile, 'NORMAL', withIndexes ? indexedFields : []);
  // As the server runs it: over the log as stored, personal fields copied sealed, never opened.
  const projector = new Projector(sealedLog, readModels, projections, [], pino({ level: 'silent' }));
  try {
    const run = await measured(async () => {
      projector.start();
      if (!(await projector.waitFor(lastPosition, 600_000))) throw new Error('the replay did not reach the end of the log in 10 minutes');
      return {};
    });
    await projector.stop();
    const db = new Database(readFile, { readonly: true });
    const rows = db
      .prepare<[], { collection: string; n: number }>('SELECT collection, count(*) AS n FROM documents GROUP BY collection')
      .all();
    db.close();
    return { ...run, documents: Object.fromEntries(rows.map((row) => [row.collection, row.n])) };
  } finally {
    await projector.stop();
    await readModels.close();
    await sealedLog.close();
    await dataKeys.close();
    scratch.cleanup();
  }
}

const data = tempDir('nature-bench-rebuild-');
try {
  process.stderr.write(`rebuild: generating a log of ≥ ${TARGET_EVENTS} events…\n`);
  const generated = await generateLog(data.path, TARGET_EVENTS, TEMPLATES);
  const file = logFile(data.path);
  const db = new Database(file, { readonly: true });
  const lastPosition = BigInt(db.prepare<[], { last: number }>('SELECT max(position) AS last FROM events').get()!.last);
  const megabytes = (
    db.prepare<[], { bytes: number }>('SELECT page_count * page_size AS bytes FROM pragma_page_count(), pragma_page_size()').get()!.bytes /
    2 ** 20
  ).toFixed(0);
  db.close();

  const runs = { raw: [] as Run[], indexed: [] as Run[], plain: [] as Run[] };
  const steps: [keyof typeof runs, () => Promise<Run>][] = [
    ['raw', () => rawScan(file)],
    ['indexed', () => replay(data.path, lastPosition, true)],
    ['plain', () => replay(data.path, lastPosition, false)],
  ];
  scanned(file); // warm the page cache, not counted
  const roundsStarted = performance.now();
  let rounds = 0;
  for (let round = 0; round < options.rounds; round++) {
    if (!options.roundsGiven && round > 0 && performance.now() - roundsStarted > ROUNDS_BUDGET_S * 1000) {
      process.stderr.write(`rebuild: stopping after ${round} round(s): the ${ROUNDS_BUDGET_S} s budget for rounds is spent\n`);
      break;
    }
    rounds += 1;
    for (let i = 0; i < steps.length; i++) {
      const [name, step] = steps[(i + round) % steps.length]!;
      runs[name].push(await step());
    }
    process.stderr.write(`rebuild: round ${round + 1}/${options.rounds} done\n`);
  }

  const rate = (name: keyof typeof runs) => generated.events / median(runs[name].map((run) => run.seconds));
  const seconds = (name: keyof typeof runs) => `${median(runs[name].map((run) => run.seconds)).toFixed(2)} s`;
  const cpu = (name: keyof typeof runs, of: 'cpu' | 'mainCpu') => median(runs[name].map((run) => run[of]));
  const cpuCells = (name: keyof typeof runs) => [`${cpu(name, 'cpu').toFixed(2)} s`, `${cpu(name, 'mainCpu').toFixed(2)} s`];
  const documents = runs.indexed[0]?.documents ?? {};
  console.log(
    heading(
      'Rebuild: replay into fresh read models vs a raw scan',
      `${generated.events} events (${generated.assessments} completed assessments, ${megabytes} MB) in a fresh SQLite log: ` +
        `${generated.templates} assessments through the real server (${generated.templateSeconds.toFixed(1)} s), the rest copies ` +
        `re-sealed per subject (${generated.copySeconds.toFixed(1)} s). Median of ${rounds} round(s)${rounds < options.rounds ? ` (of ${options.rounds}: the ${ROUNDS_BUDGET_S} s budget for rounds ran out)` : ''}.`,
    ),
  );
  console.log(
    table(
      ['pass over the whole log', 'time', 'events/s', 'CPU, all threads', 'CPU, main thread'],
      [
        ['raw: SELECT * FROM events + JSON.parse(data, metadata)', seconds('raw'), num(rate('raw')), ...cpuCells('raw')],
        [
          "replay: Projector, every projection, with the server's indexes",
          seconds('indexed'),
          num(rate('indexed')),
          ...cpuCells('indexed'),
        ],
        ['replay: the same, read-model file without indexes', seconds('plain'), num(rate('plain')), ...cpuCells('plain')],
      ],
    ),
  );
  console.log();
  console.log(
    table(
      ['ratio (events/s)', 'measured', 'goal'],
      [
        ["replay with the server's indexes / raw scan", ratio(rate('indexed'), rate('raw')), '≥ 0.75'],
        ['replay without indexes / raw scan', ratio(rate('plain'), rate('raw')), ''],
        // On a busy machine the wall times swing with the load; CPU seconds much less.
        ["raw scan's CPU / the replay's main-thread CPU (with indexes)", ratio(cpu('raw', 'mainCpu'), cpu('indexed', 'mainCpu')), ''],
        ["raw scan's CPU / the replay's CPU, all threads (with indexes)", ratio(cpu('raw', 'cpu'), cpu('indexed', 'cpu')), ''],
      ],
    ),
  );
  console.log(
    `\nRead models after a replay: ${Object.entries(documents)
      .map(([collection, n]) => `${collection} ${n}`)
      .join(', ')}.`,
  );
} finally {
  data.cleanup();
}
