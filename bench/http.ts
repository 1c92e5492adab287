/**
 * HTTP throughput and latency: autocannon against the real server process and against its anchors (bare
 * fastify serving the same item bank body, a minimal durable write; `lib/anchors.ts`), on the same machine
 * in the same run. Each round runs every route back to back; figures are medians of the rounds.
 *
 * On each backend BENCH_BACKENDS names (default: both): SQLite with the embedded bus, and PostgreSQL + NATS,
 * each beside its own anchors, the durable write on the same kind of store.
 *
 *   cd bench && npm run http [-- --quick] [-- --rounds N]
 */

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { answerBatches, BATCH_SIZE, subjectBody } from './lib/api.js';
import { type BenchBackend, backendsAsked, startBackend } from './lib/backends.js';
import { expectStatus, type JsonClient, jsonClient } from './lib/client.js';
import { CONNECTIONS, type CpuSample, load, openAssessments, patchEvery, withCpu } from './lib/load.js';
import { type NatureServer, startAnchors, startNatureServer } from './lib/nature-server.js';
import { readOptions } from './lib/options.js';
import { tempDir } from './lib/paths.js';
import type { Process } from './lib/processes.js';
import { heading, median, ratio, routeColumns, routeHeader, table } from './lib/report.js';
import { type RuntimeFigures, runtimeColumns, runtimeFiguresIn, runtimeRow } from './lib/runtime-figures.js';

const options = readOptions();
const SECONDS = options.quick ? 1 : 3;
/** Assessments prepared for the PATCH run at most: bounds the preparation time on a fast server. */
const MAX_ASSESSMENTS = options.quick ? 300 : 2000;

const rows = ['bareItems', 'items', 'subject', 'durableWrite', 'post', 'patch', 'patchKeyed'] as const;
type Row = (typeof rows)[number];
const labels: Record<Row, string> = {
  bareItems: 'anchor: bare fastify, the same item bank body',
  items: 'GET /v1/nature/items',
  subject: 'GET /v1/nature/subjects/{id}',
  durableWrite: `anchor: minimal durable write, ${BATCH_SIZE} answers`,
  post: 'POST /v1/nature/subjects',
  patch: `PATCH …/assessments/{id}, ${BATCH_SIZE} answers`,
  patchKeyed: `the same PATCH with an Idempotency-Key`,
};

interface Measured {
  backend: string;
  samples: Record<Row, CpuSample[]>;
  /** The server's own figures, from the line it logs as it stops. */
  figures: RuntimeFigures | undefined;
}

const batchBody = JSON.stringify({ responses: answerBatches[0] });
/** Subjects created over the whole run: each POST needs an external id of its own. */
let created = 0;

/** Every route, `options.rounds` times, against the server and the anchors on one backend. */
async function measure(backend: BenchBackend): Promise<Measured> {
  const samples = Object.fromEntries(rows.map((row) => [row, [] as CpuSample[]])) as Record<Row, CpuSample[]>;
  const server = await startNatureServer(backend.env);
  let figures: RuntimeFigures | undefined;
  const headers = { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' };
  const client = jsonClient(server.url, server.key, CONNECTIONS);
  // The anchors serve the service's own item bank bytes and validate answers against its item ids.
  const anchorFiles = tempDir('nature-bench-anchors-');
  const itemsFile = join(anchorFiles.path, 'items.json');
  writeFileSync(itemsFile, await (await fetch(`${server.url}/v1/nature/items`, { headers })).text());
  const anchors = await startAnchors(itemsFile, backend.anchorEnv(join(anchorFiles.path, 'writes.db')));
  try {
    // Warm-up: JIT and connection set-up on both servers, not counted.
    await load({ url: `${anchors.url}/v1/nature/items`, duration: 1 });
    await load({ url: `${server.url}/v1/nature/items`, headers, duration: 1 });
    const subject = await expectStatus(client.call('POST', '/v1/nature/subjects', subjectBody('bench-get')), 201, 'create a subject');
    for (let round = 0; round < options.rounds; round++) {
      await measureRound({ server, anchors, headers, client, subject: subject.id as string, samples });
      process.stderr.write(`http (${backend.name}): round ${round + 1}/${options.rounds} done\n`);
    }
  } finally {
    client.close();
    figures = runtimeFiguresIn(await server.stop());
    await anchors.stop();
    anchorFiles.cleanup();
  }
  return { backend: backend.name, samples, figures };
}

interface Round {
  server: NatureServer;
  anchors: Process;
  headers: Record<string, string>;
  client: JsonClient;
  subject: string;
  samples: Record<Row, CpuSample[]>;
}

/** One round: each route in turn. */
async function measureRound({ server, anchors, headers, client, subject, samples }: Round): Promise<void> {
  samples.bareItems.push(await withCpu(anchors, () => load({ url: `${anchors.url}/v1/nature/items`, duration: SECONDS })));
  samples.items.push(await withCpu(server, () => load({ url: `${server.url}/v1/nature/items`, headers, duration: SECONDS })));
  samples.subject.push(
    await withCpu(server, () => load({ url: `${server.url}/v1/nature/subjects/${subject}`, headers, duration: SECONDS })),
  );
  let written = 0;
  samples.durableWrite.push(
    await withCpu(anchors, () =>
      load({
        url: anchors.url,
        headers: { 'content-type': 'application/json' },
        duration: SECONDS,
        requests: [{ method: 'PATCH', setupRequest: (request) => ({ ...request, path: `/answers/${written++}`, body: batchBody }) }],
      }),
    ),
  );
  // Each POST needs its own external id; the subjects it makes get the assessments PATCHed below.
  const subjects: string[] = [];
  const post = await withCpu(server, () =>
    load({
      url: server.url,
      headers,
      duration: SECONDS,
      requests: [
        {
          method: 'POST',
          path: '/v1/nature/subjects',
          setupRequest: (request) => ({ ...request, body: JSON.stringify(subjectBody(`bench-${process.pid}-${created++}`)) }),
          onResponse: (status, body) => {
            if (status === 201) subjects.push((JSON.parse(body) as { id: string }).id);
          },
        },
      ],
    }),
  );
  samples.post.push(post);
  // Not measured: an open assessment for each subject (at most MAX_ASSESSMENTS).
  const assessments = await openAssessments(client, subjects.slice(0, MAX_ASSESSMENTS));
  // Half without a key, half with one, as the typed client and the component always send. The second run pays
  // for the background work (scoring, projections) the first one left, so they take turns going first.
  const half = Math.floor(assessments.length / 2);
  const unkeyed = async () => samples.patch.push(await withCpu(server, () => patchEvery(server.url, headers, assessments.slice(0, half))));
  const keyed = async () =>
    samples.patchKeyed.push(await withCpu(server, () => patchEvery(server.url, headers, assessments.slice(half), 'keyed')));
  for (const run of samples.patch.length % 2 === 0 ? [unkeyed, keyed] : [keyed, unkeyed]) await run();
}

/** One backend's tables: its routes, their ratios to its anchors, and the server's own figures. */
function report({ backend, samples, figures }: Measured): void {
  const rate = (row: Row) => median(samples[row].map((sample) => sample.perSecond));
  const cpu = (row: Row) => median(samples[row].map((sample) => sample.cpuMicrosPerRequest));
  console.log(
    heading(
      `HTTP on ${backend}: requests per second and latency (autocannon)`,
      `autocannon, ${CONNECTIONS} connections, ${SECONDS} s per route (PATCH: 4 batches for each subject the POST run made); ` +
        `the real server, compiled (\`node dist/src/server/main.js\`, fresh data directory, synchronous=FULL, LOG_LEVEL=info to a file) ` +
        `and its anchors (\`lib/anchors.ts\`: bare fastify; a zod-checked durable write to the same kind of store: on SQLite, an append ` +
        `to a WAL file, synchronous=FULL, group commit; on PostgreSQL, one INSERT per request, its own transaction, same driver), ` +
        `each its own process; median of ${options.rounds} round(s). Server CPU per request: the process's user + system time ` +
        `(/proc, 10 ms ticks) over the run, background work such as scoring and webhooks included, per 2xx response.`,
    ),
  );
  console.log(
    table(
      routeHeader,
      rows.map((row) => [labels[row], ...routeColumns(samples[row])]),
    ),
  );
  console.log();
  console.log(
    table(
      ['ratio (req/s)', 'measured', 'goal'],
      [
        ['GET items / bare fastify, the same body', ratio(rate('items'), rate('bareItems')), '≥ 0.8'],
        [`PATCH of ${BATCH_SIZE} answers / minimal durable write`, ratio(rate('patch'), rate('durableWrite')), '≥ 0.5'],
        ['PATCH with an Idempotency-Key / minimal durable write', ratio(rate('patchKeyed'), rate('durableWrite')), '≥ 0.5'],
        ['POST subjects / minimal durable write', ratio(rate('post'), rate('durableWrite')), '≥ 0.5'],
        ['GET subject / GET items', ratio(rate('subject'), rate('items')), ''],
        ['CPU per request: GET items / bare fastify', ratio(cpu('items'), cpu('bareItems')), ''],
        [`CPU per request: PATCH / minimal durable write`, ratio(cpu('patch'), cpu('durableWrite')), ''],
        [`CPU per request: PATCH with an Idempotency-Key / minimal durable write`, ratio(cpu('patchKeyed'), cpu('durableWrite')), ''],
        ['CPU per request: POST subjects / minimal durable write', ratio(cpu('post'), cpu('durableWrite')), ''],
      ],
    ),
  );
  console.log(`\nThe server's write path and event loop over all its runs (its own figures, logged as it stopped):\n`);
  console.log(table(runtimeColumns, [runtimeRow(figures)]));
}

const measured: Measured[] = [];
for (const name of backendsAsked()) {
  const backend = await startBackend(name);
  try {
    measured.push(await measure(backend));
  } finally {
    await backend.stop();
  }
}
for (const backend of measured) report(backend);
