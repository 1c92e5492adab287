/**
 * Benchmarks, one command: `npm run bench`. Each figure comes from one run on this machine; compare
 * figures as ratios within a run, not across machines.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { pino } from 'pino';
import { projections } from '../projections/index.js';
import { NatsBus } from '../src/adapters/nats/bus.js';
import { SqliteBus } from '../src/adapters/sqlite/bus.js';
import { SqliteEventStore } from '../src/adapters/sqlite/event-store.js';
import type { Synchronous } from '../src/adapters/sqlite/database.js';
import { SqliteReadModelStore } from '../src/adapters/sqlite/read-model-store.js';
import { Projector } from '../src/projector.js';
import type { Bus } from '../src/ports/bus.js';
import { batches } from '../test/support/known-answers.js';
import { natsServerPath, startNatsServer } from '../test/support/nats-server.js';
import { auth, openTestApp, validSubject } from '../test/support/test-app.js';
import { tempDir } from '../test/support/temp-dir.js';

const APPENDS = 2000;
const ASSESSMENTS = 100;
const MESSAGES = 2000;

async function appendsPerSecond(synchronous: Synchronous): Promise<number> {
  const dir = tempDir('nature-bench-');
  const store = new SqliteEventStore(join(dir.path, 'events.db'), synchronous);
  const started = performance.now();
  for (let i = 0; i < APPENDS; i++) {
    await store.appendToStream(`bench-${i}`, [{ id: randomUUID(), type: 'Benched', data: { i }, metadata: {} }], 'no_stream');
  }
  const seconds = (performance.now() - started) / 1000;
  await store.close();
  dir.cleanup();
  return APPENDS / seconds;
}

/** Whole assessments through the HTTP layer (in-process): create, start, 4 batches, wait for the profile. */
async function assessmentFlow() {
  const t = await openTestApp();
  const { raw } = await t.mint('test', 'sk');
  const patchMs: number[] = [];
  const started = performance.now();
  for (let n = 0; n < ASSESSMENTS; n++) {
    const subject = (await t.app.inject({ method: 'POST', url: '/v1/nature/subjects', headers: auth(raw), payload: validSubject() })).json();
    const assessment = (await t.app.inject({ method: 'POST', url: `/v1/nature/subjects/${subject.id}/assessments`, headers: auth(raw) })).json();
    for (const batch of batches(4)) {
      const before = performance.now();
      await t.app.inject({ method: 'PATCH', url: `/v1/nature/subjects/${subject.id}/assessments/${assessment.id}`, headers: auth(raw), payload: { responses: batch } });
      patchMs.push(performance.now() - before);
    }
    for (;;) {
      const profile = await t.app.inject({ url: `/v1/nature/subjects/${subject.id}/profile`, headers: auth(raw) });
      if (profile.statusCode === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  }
  const seconds = (performance.now() - started) / 1000;
  const eventsDb = t.envs.test.events;
  const log = await eventsDb.readAll({ limit: 1_000_000 });
  patchMs.sort((a, b) => a - b);
  const result = { perSecond: ASSESSMENTS / seconds, patchP50: patchMs[Math.floor(patchMs.length / 2)]!, patchP99: patchMs[Math.floor(patchMs.length * 0.99)]!, events: log.length };

  // Replay: every read model rebuilt from this log into a fresh read-model file.
  const dir = tempDir('nature-bench-');
  const readModels = new SqliteReadModelStore(join(dir.path, 'read.db'), 'NORMAL');
  const projector = new Projector(eventsDb, readModels, projections, [], pino({ level: 'silent' }));
  const replayStart = performance.now();
  projector.start();
  await projector.waitFor(log.at(-1)!.position, 60_000);
  const replaySeconds = (performance.now() - replayStart) / 1000;
  await projector.stop();
  await readModels.close();
  dir.cleanup();
  await t.close();
  return { ...result, replayPerSecond: log.length / replaySeconds };
}

/** Publishes MESSAGES, then consumes and acks them all: messages per second for the round trip. */
async function busRoundTrip(bus: Bus): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < MESSAGES; i++) await bus.publish('deliveries', `m-${i}`, { i });
  const controller = new AbortController();
  let seen = 0;
  await bus.consume(
    'deliveries',
    async () => {
      if (++seen === MESSAGES) controller.abort();
      return { kind: 'ack' };
    },
    { signal: controller.signal, concurrency: 32 },
  );
  const seconds = (performance.now() - started) / 1000;
  await bus.close();
  return MESSAGES / seconds;
}

const full = await appendsPerSecond('FULL');
const normal = await appendsPerSecond('NORMAL');
console.log(`event store appends, one event each (${APPENDS}):`);
console.log(`  synchronous=FULL    ${full.toFixed(0)} appends/s`);
console.log(`  synchronous=NORMAL  ${normal.toFixed(0)} appends/s`);
console.log(`  FULL / NORMAL       ${(full / normal).toFixed(2)}`);
const flow = await assessmentFlow();
console.log(`assessments end to end, in-process HTTP, synchronous=FULL (${ASSESSMENTS}):`);
console.log(`  ${flow.perSecond.toFixed(1)} assessments/s (subject, start, 4 PATCH of 19, profile)`);
console.log(`  PATCH p50 ${flow.patchP50.toFixed(2)} ms, p99 ${flow.patchP99.toFixed(2)} ms`);
console.log(`replay of the resulting log into fresh read models (${flow.events} events):`);
console.log(`  ${flow.replayPerSecond.toFixed(0)} events/s`);

const busDir = tempDir('nature-bench-');
const sqliteBus = await busRoundTrip(new SqliteBus(join(busDir.path, 'bus.db'), 'FULL', { pollIntervalMs: 5 }));
busDir.cleanup();
console.log(`bus round trip, publish then consume and ack (${MESSAGES} messages):`);
console.log(`  embedded (SQLite, FULL)  ${sqliteBus.toFixed(0)} messages/s`);
if (natsServerPath === undefined) {
  console.log('  NATS JetStream           not measured: nats-server is not installed');
} else {
  const server = await startNatsServer();
  const nats = await busRoundTrip(await NatsBus.connect({ url: server.url, environment: 'test' }));
  await server.stop();
  console.log(`  NATS JetStream           ${nats.toFixed(0)} messages/s`);
  console.log(`  NATS / embedded          ${(nats / sqliteBus).toFixed(2)}`);
}
