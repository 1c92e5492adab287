/**
 * Event store appends and reads: ours (SqliteEventStore, synchronous=FULL) beside a raw better-sqlite3
 * ceiling and Emmett's SQLite event store, as shipped and over one long-lived connection. Every store
 * gets a fresh file per round; within a round each workload runs on the stores in turns (the order
 * rotating each round), so load drift hits all of them alike. Figures are medians of rounds.
 *
 *   cd bench && npm run store [-- --quick] [-- --rounds N]
 */
import { readOptions } from './lib/options.js';
import { tempDir } from './lib/paths.js';
import { heading, median, num, ratio, table } from './lib/report.js';
import { benchEvents } from './lib/store-event.js';
import { emmettConnection, emmettShipped, emmettSynchronous, ours, raw, type StoreKind, type StoreUnderTest } from './lib/stores.js';
import { type Timed, timed } from './lib/timed.js';

const options = readOptions();
const SECONDS = options.quick ? 0.3 : 0.9;
const SLICES = 3;
const BATCH = 19;

interface Workload {
  label: string;
  kind: 'append' | 'read';
  events: number;
  callers: number;
}

const workloads: Workload[] = [
  { label: 'single-event appends, 1 caller', kind: 'append', events: 1, callers: 1 },
  { label: 'single-event appends, 8 callers', kind: 'append', events: 1, callers: 8 },
  { label: `${BATCH}-event appends, 1 caller`, kind: 'append', events: BATCH, callers: 1 },
  { label: `${BATCH}-event appends, 8 callers`, kind: 'append', events: BATCH, callers: 8 },
  { label: `readStream of ${BATCH} events, 1 caller`, kind: 'read', events: BATCH, callers: 1 },
  { label: `readStream of ${BATCH} events, 8 callers`, kind: 'read', events: BATCH, callers: 8 },
];
/** Workloads measured in turns with each other: the same operation at 1 and at 8 callers. */
const groups = [
  [0, 1],
  [2, 3],
  [4, 5],
];
const kinds: StoreKind[] = [ours, raw, emmettShipped, emmettConnection];

/** samples[workload][store]: one Timed per round. */
const samples = workloads.map(() => kinds.map((): Timed[] => []));

/** Emmett logs every failed transaction with console.log; counted in the table instead of flooding it. */
async function quietly<T>(work: () => Promise<T>): Promise<T> {
  const log = console.log;
  console.log = () => undefined;
  try {
    return await work();
  } finally {
    console.log = log;
  }
}

async function measure(
  store: StoreUnderTest,
  workload: Workload,
  streams: { next: number; written: string[] },
  seconds = SECONDS,
): Promise<Timed> {
  if (workload.kind === 'read') {
    const written = streams.written;
    if (written.length === 0) return { ops: 0, errors: 0, firstError: 'no stream was written', seconds: 0, perSecond: Number.NaN };
    let i = 0;
    return timed(seconds, workload.callers, () => store.read(written[i++ % written.length]!));
  }
  return timed(seconds, workload.callers, async () => {
    const stream = `bench-${streams.next++}`;
    await store.append(stream, benchEvents(workload.events));
    if (workload.events === BATCH) streams.written.push(stream);
  });
}

function add(sum: Timed | undefined, slice: Timed): Timed {
  if (sum === undefined) return slice;
  const ops = sum.ops + slice.ops;
  const seconds = sum.seconds + slice.seconds;
  return { ops, errors: sum.errors + slice.errors, firstError: sum.firstError ?? slice.firstError, seconds, perSecond: ops / seconds };
}

// Warm-up: JIT, sqlite3's thread pool, the page cache. Not counted.
{
  const dir = tempDir('nature-bench-store-');
  for (const kind of kinds) {
    const store = await kind.open(dir.path);
    const streams = { next: 0, written: [] };
    await quietly(() => measure(store, { label: 'warm-up', kind: 'append', events: BATCH, callers: 1 }, streams, 0.3));
    await quietly(() => measure(store, { label: 'warm-up', kind: 'read', events: BATCH, callers: 1 }, streams, 0.3));
    await store.close();
  }
  dir.cleanup();
}

for (let round = 0; round < options.rounds; round++) {
  const dir = tempDir('nature-bench-store-');
  const order = kinds.map((_, i) => (i + round) % kinds.length);
  const open = new Map<number, { store: StoreUnderTest; streams: { next: number; written: string[] } }>();
  for (const k of order) open.set(k, { store: await kinds[k]!.open(dir.path), streams: { next: 0, written: [] } });
  // Each figure is taken in slices, taking turns with the other stores and caller counts of its group:
  // the disk's fsync latency swings with what else runs on the machine, and short turns spread those
  // swings over all of them alike (8 callers / 1 caller is a ratio too).
  for (const group of groups) {
    const totals = new Map<string, Timed>();
    for (let slice = 0; slice < SLICES; slice++) {
      for (const w of group) {
        for (const k of order) {
          if (workloads[w]!.callers > 1 && !kinds[k]!.concurrent) continue;
          const { store, streams } = open.get(k)!;
          const taken = await quietly(() => measure(store, workloads[w]!, streams, SECONDS / SLICES));
          totals.set(`${w}:${k}`, add(totals.get(`${w}:${k}`), taken));
        }
      }
    }
    for (const [key, total] of totals) {
      const [w, k] = key.split(':').map(Number) as [number, number];
      samples[w]![k]!.push(total);
    }
  }
  for (const { store } of open.values()) await store.close();
  dir.cleanup();
  process.stderr.write(`store: round ${round + 1}/${options.rounds} done\n`);
}

const perSecond = (w: number, k: number) => median(samples[w]![k]!.map((sample) => sample.perSecond));
const errors = (w: number, k: number) => samples[w]![k]!.reduce((sum, sample) => sum + sample.errors, 0);

function cell(w: number, k: number): string {
  if (samples[w]![k]!.length === 0) return '— (synchronous)';
  const workload = workloads[w]!;
  const rate = perSecond(w, k);
  const failed = errors(w, k);
  const events = workload.kind === 'append' && workload.events > 1 ? ` (${num(rate * workload.events)} ev/s)` : '';
  return `${num(rate)}${events}${failed > 0 ? ` ⚠ ${failed} failed` : ''}`;
}

const probe = tempDir('nature-bench-store-');
const emmettSync = await emmettSynchronous(probe.path);
probe.cleanup();

console.log(
  heading(
    'Event store: appends and reads per second',
    `SQLite WAL, synchronous=FULL everywhere (Emmett's connections report synchronous=${String(emmettSync)}); ` +
      `each append to a new stream with its expected version; ${SECONDS} s per figure in ${SLICES} slices, the stores and caller counts taking turns; median of ${options.rounds} round(s).`,
  ),
);
console.log(
  table(
    ['calls per second', ...kinds.map((kind) => kind.name)],
    workloads.map((workload, w) => [workload.label, ...kinds.map((_, k) => cell(w, k))]),
  ),
);
console.log();

const [SINGLE_1, SINGLE_8, BATCH_1, BATCH_8, READ_1, READ_8] = [0, 1, 2, 3, 4, 5];
const OURS = 0;
const RAW = 1;
const SHIPPED = 2;
const CONNECTION = 3;
console.log(
  table(
    ['ratio', 'measured', 'goal'],
    [
      ['single-event appends, 8 callers / 1 caller (ours)', ratio(perSecond(SINGLE_8, OURS), perSecond(SINGLE_1, OURS)), '≥ 3'],
      [`${BATCH}-event appends, 8 callers / 1 caller (ours)`, ratio(perSecond(BATCH_8, OURS), perSecond(BATCH_1, OURS)), ''],
      ['single-event appends: ours / raw better-sqlite3', ratio(perSecond(SINGLE_1, OURS), perSecond(SINGLE_1, RAW)), '≥ 0.9'],
      [`${BATCH}-event appends: ours / raw better-sqlite3`, ratio(perSecond(BATCH_1, OURS), perSecond(BATCH_1, RAW)), ''],
      ['single-event appends: ours / Emmett as shipped, 1 caller', ratio(perSecond(SINGLE_1, OURS), perSecond(SINGLE_1, SHIPPED)), '≥ 25×'],
      [
        'single-event appends: ours / Emmett as shipped, 8 callers',
        ratio(perSecond(SINGLE_8, OURS), perSecond(SINGLE_8, SHIPPED)),
        '≥ 50×',
      ],
      [
        'single-event appends: ours / Emmett one connection, 1 caller',
        ratio(perSecond(SINGLE_1, OURS), perSecond(SINGLE_1, CONNECTION)),
        '',
      ],
      [
        'single-event appends: ours / Emmett one connection, 8 callers',
        ratio(perSecond(SINGLE_8, OURS), perSecond(SINGLE_8, CONNECTION)),
        '',
      ],
      ['readStream: ours / raw better-sqlite3, 1 caller', ratio(perSecond(READ_1, OURS), perSecond(READ_1, RAW)), ''],
      ['readStream: ours / Emmett as shipped, 8 callers', ratio(perSecond(READ_8, OURS), perSecond(READ_8, SHIPPED)), ''],
    ],
  ),
);

const failures = workloads.flatMap((workload, w) =>
  kinds.flatMap((kind, k) => {
    const failed = samples[w]![k]!.find((sample) => sample.firstError !== undefined);
    return failed ? [`- ${kind.name}, ${workload.label}: ${errors(w, k)} calls failed, e.g. "${failed.firstError}"`] : [];
  }),
);
if (failures.length > 0) console.log(`\nFailed calls (not counted in the rates):\n${failures.join('\n')}`);
