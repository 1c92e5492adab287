/**
 * Whole assessments against the real server, with a webhook receiver on loopback: N callers each doing
 * subject → start → 4 PATCHes of 19 answers, again and again. Measures completed assessments per second
 * against webhooks delivered per second over the run's second half, the time from the last PATCH's answer to the
 * completion webhook's arrival, the server's peak RSS and, on the embedded bus, the bytes each store holds
 * per completed assessment; on the embedded bus, on NATS JetStream, and with the log and read models on PostgreSQL
 * (bus on NATS). One server per (configuration, N), all started first; each round runs
 * every configuration once, in turn.
 *
 *   cd bench && npm run lifecycle [-- --quick] [-- --rounds N]
 */

import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { storeNames } from '../src/adapters/store-names.js';
import { natsServerPath, startNatsServer } from '../test/support/nats-server.js';
import { answerBatches, subjectBody } from './lib/api.js';
import { backendsAsked, startBackend } from './lib/backends.js';
import { expectStatus, type JsonClient, jsonClient } from './lib/client.js';
import { type NatureServer, startNatureServer } from './lib/nature-server.js';
import { readOptions } from './lib/options.js';
import { tempDir } from './lib/paths.js';
import { startReceiver } from './lib/receiver.js';
import { heading, median, megabytes, ms, num, quantile, table } from './lib/report.js';
import { type RuntimeFigures, runtimeColumns, runtimeFiguresIn, runtimeRow } from './lib/runtime-figures.js';

const options = readOptions();
const SECONDS = options.quick ? 2 : 7;
/** How long to wait after a run for its last webhooks before counting them missing. */
const DRAIN_MS = 20_000;
/**
 * BENCH_CALLERS=64 (a comma-separated list) and BENCH_BUS=embedded|nats|postgres narrow a run, to profile one
 * configuration; `postgres` is the production stack on servers: the log and read models on PostgreSQL, the bus on NATS.
 */
const CALLERS = (process.env.BENCH_CALLERS ?? '4,16,64').split(',').map(Number);
const BUSES = (process.env.BENCH_BUS ?? 'embedded,nats,postgres').split(',');

interface Config {
  bus: 'embedded' | 'NATS' | 'PostgreSQL + NATS';
  callers: number;
  server: NatureServer;
  client: JsonClient;
  completedPerSecond: number[];
  /** Per round: webhooks delivered / assessments completed over the run's second half; ≈ 1 when the pipeline keeps up. */
  keepingUp: number[];
  /** Last PATCH answered → webhook received, ms, pooled over the rounds. */
  latencies: number[];
  missing: number;
  /** Assessments completed on this server, warm-up included: what its stores hold. */
  completed: number;
  /** Completions acknowledged and not yet delivered, sampled every 100 ms during the runs: the outbox seen from outside. */
  undelivered: number[];
  /** The server's own figures, logged as it stopped. */
  figures?: RuntimeFigures | undefined;
  dataDir: { path: string; cleanup(): void };
}

if (natsServerPath === undefined) {
  console.error('\n!!! NATS NOT MEASURED: nats-server is not installed on this machine (apt-get install -y nats-server).\n');
}
const receiver = await startReceiver();
/** NATS servers and PostgreSQL clusters, one per configuration that needs them. */
const natsServers: { stop(): Promise<void> }[] = [];
const configs: Config[] = [];

async function addConfig(bus: Config['bus'], callers: number, env: Record<string, string>): Promise<void> {
  const dataDir = tempDir('nature-bench-lifecycle-');
  const server = await startNatureServer(env, dataDir.path);
  const client = jsonClient(server.url, server.key, callers);
  configs.push({
    bus,
    callers,
    server,
    client,
    completedPerSecond: [],
    keepingUp: [],
    latencies: [],
    missing: 0,
    completed: 0,
    undelivered: [],
    dataDir,
  });
  await expectStatus(client.call('POST', '/v1/nature/webhook_endpoints', { url: receiver.url }), 201, 'register the webhook endpoint');
}

/** One caller's assessments until the deadline; the ack time of each one's last PATCH, by assessment id. */
async function caller(client: JsonClient, deadline: number, acks: Map<string, number>, tag: string): Promise<void> {
  for (let n = 0; performance.now() < deadline; n++) {
    const subject = await expectStatus(client.call('POST', '/v1/nature/subjects', subjectBody(`${tag}-${n}`)), 201, 'create a subject');
    const base = `/v1/nature/subjects/${subject.id as string}/assessments`;
    const assessment = await expectStatus(client.call('POST', base, { language: 'en' }), 201, 'start an assessment');
    for (const batch of answerBatches) {
      await expectStatus(client.call('PATCH', `${base}/${assessment.id as string}`, { responses: batch }), 200, 'PATCH a batch');
    }
    acks.set(assessment.id as string, performance.now());
  }
}

/** Waits for the webhooks of these assessments (up to DRAIN_MS), so the next run does not pay for their deliveries. */
async function drain(acks: Map<string, number>): Promise<void> {
  const until = performance.now() + DRAIN_MS;
  while ([...acks.keys()].some((id) => !receiver.arrivals.has(id)) && performance.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function runOnce(config: Config, round: number): Promise<void> {
  const acks = new Map<string, number>();
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  const sampler = setInterval(() => {
    let waiting = 0;
    for (const id of acks.keys()) if (!receiver.arrivals.has(id)) waiting += 1;
    config.undelivered.push(waiting);
  }, 100);
  await Promise.all(Array.from({ length: config.callers }, (_, i) => caller(config.client, deadline, acks, `r${round}-c${i}`)));
  clearInterval(sampler);
  const ended = performance.now();
  const seconds = (ended - started) / 1000;
  config.completedPerSecond.push(acks.size / seconds);
  // Over the second half, completions and arrivals of any of the run's assessments: equal rates when the
  // pipeline keeps up (whatever its latency), fewer arrivals while a queue grows.
  const half = started + (ended - started) / 2;
  const within = (at: number | undefined) => at !== undefined && at >= half && at <= ended;
  const completed = [...acks.values()].filter(within).length;
  const delivered = [...acks.keys()].filter((id) => within(receiver.arrivals.get(id))).length;
  config.keepingUp.push(delivered / completed);
  config.completed += acks.size;
  await drain(acks);
  for (const [id, ackedAt] of acks) {
    const arrivedAt = receiver.arrivals.get(id);
    if (arrivedAt === undefined) config.missing += 1;
    else config.latencies.push(arrivedAt - ackedAt);
  }
}

try {
  if (BUSES.includes('embedded')) for (const callers of CALLERS) await addConfig('embedded', callers, {});
  if (natsServerPath !== undefined && BUSES.includes('nats')) {
    for (const callers of CALLERS) {
      const nats = await startNatsServer();
      natsServers.push(nats);
      await addConfig('NATS', callers, { NATURE_BUS: 'nats', NATS_URL: nats.url });
    }
  }
  if (BUSES.includes('postgres') && backendsAsked().includes('postgres')) {
    for (const callers of CALLERS) {
      const backend = await startBackend('postgres');
      natsServers.push(backend);
      await addConfig('PostgreSQL + NATS', callers, backend.env);
    }
  }
  // Warm-up, not counted: half a second per server (JIT, connections, the first deliveries).
  for (const config of configs) {
    const acks = new Map<string, number>();
    await caller(config.client, performance.now() + 500, acks, 'warm-up');
    config.completed += acks.size;
    await drain(acks);
  }
  for (let round = 0; round < options.rounds; round++) {
    for (const config of configs) await runOnce(config, round);
    process.stderr.write(`lifecycle: round ${round + 1}/${options.rounds} done\n`);
  }

  console.log(
    heading(
      'Lifecycle: whole assessments with webhooks',
      `N callers, each looping subject → start → 4 PATCHes of 19 answers, for ${SECONDS} s per run, against the real server ` +
        `(synchronous=FULL, LOG_LEVEL=info to a file); webhooks to a receiver on 127.0.0.1 in its own process. Assessments/s: median of ${options.rounds} ` +
        `round(s); latency: last PATCH answered → webhook received, over every assessment of every round; RSS: the server's VmHWM.`,
    ),
  );
  console.log(
    table(
      ['backend', 'callers', 'assessments/s', 'delivered / completed', 'webhook p50', 'p99', 'max', 'missing', 'peak RSS'],
      configs.map((config) => [
        config.bus,
        String(config.callers),
        num(median(config.completedPerSecond)),
        num(median(config.keepingUp)),
        ms(quantile(config.latencies, 0.5)),
        ms(quantile(config.latencies, 0.99)),
        ms(Math.max(...config.latencies)),
        String(config.missing),
        megabytes(config.server.peakRssKb()),
      ]),
    ),
  );
  console.log(
    `\nGoals: delivered / completed ≈ 1 over each run's second half (the webhooks keep up), webhook p50 ≤ 20 ms, p99 ≤ 50 ms; peak RSS < 250 MB. ` +
      `${receiver.arrivals.size} completions delivered, ${receiver.deliveries() - receiver.arrivals.size} repeat deliveries.`,
  );
  for (const config of configs) {
    config.client.close();
    config.figures = runtimeFiguresIn(await config.server.stop());
  }
  reportWritePath(configs);
  const embedded = configs.filter((config) => config.bus === 'embedded');
  if (embedded.length > 0) reportBytesPerAssessment(embedded);
  if (natsServerPath === undefined) console.log('\n**NATS not measured: nats-server is not installed on this machine.**');
} catch (error) {
  // The server's own account of a failure is in its log.
  for (const config of configs) {
    const errors = config.server
      .output()
      .split('\n')
      .filter((line) => /"level":(50|60)/.test(line));
    if (errors.length > 0)
      console.error(`${config.bus} server, ${config.callers} callers, error log lines:\n${errors.slice(-5).join('\n')}`);
  }
  throw error;
} finally {
  for (const config of configs) {
    config.client.close();
    await config.server.stop();
    config.dataDir.cleanup();
  }
  for (const nats of natsServers) await nats.stop();
  await receiver.close();
}

/**
 * What the servers measured of themselves over all their runs, warm-up included (src/runtime-figures.ts), and the
 * outbox as the callers saw it: completions acknowledged whose webhook had not arrived, sampled every 100 ms.
 */
function reportWritePath(all: Config[]): void {
  console.log(`\nWrite path and event loop, each server's own figures over its whole life; undelivered sampled every 100 ms:\n`);
  console.log(
    table(
      ['backend', 'callers', ...runtimeColumns, 'undelivered (mean / max)'],
      all.map((config) => [
        config.bus,
        String(config.callers),
        ...runtimeRow(config.figures),
        `${num(config.undelivered.reduce((sum, n) => sum + n, 0) / config.undelivered.length)} / ${Math.max(0, ...config.undelivered)}`,
      ]),
    ),
  );
}

/**
 * Bytes on disk per completed assessment, per store file (both environments' files summed), read after the
 * server has stopped so each SQLite file is checkpointed and whole. Embedded bus only: its outbox is in the
 * log's file, where NATS keeps its messages in the NATS server's own store.
 */
function reportBytesPerAssessment(embedded: Config[]): void {
  const perStore = new Map<string, number>();
  let completed = 0;
  for (const config of embedded) {
    completed += config.completed;
    for (const file of readdirSync(config.dataDir.path)) {
      if (!/\.db(-wal)?$/.test(file)) continue;
      const environment = Object.values(storeNames).find((name) => file.startsWith(`${name}.`));
      const store = file.replace(/-wal$/, '').slice(environment === undefined ? 0 : environment.length + 1);
      perStore.set(store, (perStore.get(store) ?? 0) + statSync(join(config.dataDir.path, file)).size);
    }
  }
  const total = [...perStore.values()].reduce((sum, bytes) => sum + bytes, 0);
  if (completed === 0) throw new Error('no assessment was completed: there is nothing to divide the stores by');
  const kb = (bytes: number) => `${(bytes / completed / 1024).toFixed(2)} KB`;
  console.log(`\nBytes on disk per completed assessment (embedded bus, ${completed} assessments on ${embedded.length} servers):\n`);
  console.log(
    table(['store file', 'per assessment'], [...[...perStore].map(([store, bytes]) => [store, kb(bytes)]), ['all stores', kb(total)]]),
  );
  console.log('\nGoal: all stores ≤ 5 KB per completed assessment.');
  reportBytesPerTable(embedded, completed);
}

/**
 * Where those bytes are: SQLite's dbstat per table and index of each store file (both environments and every
 * server summed), with the share of their pages left empty. Read after the servers stopped (checkpointed files).
 */
function reportBytesPerTable(embedded: Config[], completed: number): void {
  const perTable = new Map<string, { bytes: number; unused: number }>();
  for (const config of embedded) {
    for (const file of readdirSync(config.dataDir.path)) {
      if (!file.endsWith('.db')) continue;
      const environment = Object.values(storeNames).find((name) => file.startsWith(`${name}.`));
      const store = file.slice(environment === undefined ? 0 : environment.length + 1);
      const db = new Database(join(config.dataDir.path, file), { readonly: true });
      try {
        const rows = db
          .prepare<[], { name: string; bytes: number; unused: number }>(
            'SELECT name, SUM(pgsize) AS bytes, SUM(unused) AS unused FROM dbstat GROUP BY name',
          )
          .all();
        for (const { name, bytes, unused } of rows) {
          const key = `${store} ${name}`;
          const sum = perTable.get(key) ?? { bytes: 0, unused: 0 };
          perTable.set(key, { bytes: sum.bytes + bytes, unused: sum.unused + unused });
        }
      } finally {
        db.close();
      }
    }
  }
  const biggest = [...perTable].sort((a, b) => b[1].bytes - a[1].bytes);
  console.log(`\nBytes per table and index (dbstat), per completed assessment, largest first:\n`);
  console.log(
    table(
      ['store file, table or index', 'per assessment', 'empty in its pages'],
      biggest.map(([name, { bytes, unused }]) => [
        name,
        `${(bytes / completed / 1024).toFixed(2)} KB`,
        `${bytes === 0 ? 0 : Math.round((unused / bytes) * 100)} %`,
      ]),
    ),
  );
}
