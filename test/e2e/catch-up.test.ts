import { join } from 'node:path';
import Database from 'better-sqlite3';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { SqliteReadModelStore } from '../../src/adapters/sqlite/read-model-store.js';
import { indexedFields, projections } from '../../src/projections/index.js';
import type { CatchUpLimits } from '../../src/projector/catch-up.js';
import { Projector } from '../../src/projector/projector.js';
import { loadConfig } from '../../src/settings/config.js';
import { openLog } from '../../src/wiring/environments.js';
import { eventually } from '../support/eventually.js';
import { batches, knownResponses } from '../support/known-answers.js';
import { auth, openTestApp, type TestApp, validSubject } from '../support/test-app.js';

/** Every document (tombstones included, with their positions) and counter row of a read-model file, in order. */
function contents(file: string) {
  const db = new Database(file, { readonly: true });
  const documents = db.prepare('SELECT collection, id, doc, position FROM documents ORDER BY collection, id').all();
  const counters = db.prepare('SELECT * FROM counters ORDER BY collection, counter, period, key').all();
  const indexes = db.prepare("SELECT name, sql FROM sqlite_master WHERE type = 'index' ORDER BY name").all();
  db.close();
  return { documents, counters, indexes };
}

/** The projections (no reactors) over the sandbox log of `dataDir` into `readFile`, until they reach its end. */
async function project(dataDir: string, readFile: string, limits: CatchUpLimits | false) {
  const { sealedLog, dataKeys } = await openLog(loadConfig({ NATURE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), 'test');
  const readModels = new SqliteReadModelStore(readFile, 'NORMAL', indexedFields);
  const last = (await sealedLog.readAll({ after: 0n, limit: 1_000_000 })).at(-1)!.position;
  const reads = vi.spyOn(sealedLog, 'readAll');
  const projector = new Projector(sealedLog, readModels, projections, [], pino({ level: 'silent' }), 10, limits);
  projector.start();
  expect(await projector.waitFor(last, 30_000)).toBe(true);
  await projector.stop();
  await readModels.close();
  await sealedLog.close();
  await dataKeys.close();
  // The catch-up reads pages of its own size (paging through the log, the projector subscribes instead).
  return { pagesRead: new Set(reads.mock.calls.map(([options]) => options.limit)) };
}

describe('catching up on a long log in one scan', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp();
    const key = (await t.mint('test', 'sk')).raw;
    const send = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: object) =>
      t.app.inject({ method, url, headers: auth(key), ...(payload !== undefined && { payload }) });
    // Deliveries to a closed port: each completion leaves an event, a delivery and its failed attempt.
    expect((await send('POST', '/v1/nature/webhook_endpoints', { url: 'http://127.0.0.1:9/hook' })).statusCode).toBe(201);
    for (let i = 0; i < 6; i++) {
      const subject = (await send('POST', '/v1/nature/subjects', validSubject())).json().id as string;
      const assessment = (await send('POST', `/v1/nature/subjects/${subject}/assessments`)).json().id as string;
      // Completed in one batch, in two, or left open with one batch of two.
      const responses = i % 3 === 0 ? [knownResponses] : batches(2);
      for (const batch of i % 3 === 2 ? responses.slice(0, 1) : responses) {
        expect((await send('PATCH', `/v1/nature/subjects/${subject}/assessments/${assessment}`, { responses: batch })).statusCode).toBe(
          200,
        );
      }
      if (i % 3 !== 2) {
        await eventually(async () => (await send('GET', `/v1/nature/subjects/${subject}/profile`)).statusCode === 200 || undefined);
      }
      // Subjects erased before and after others complete.
      if (i === 1 || i === 4) expect((await send('DELETE', `/v1/nature/subjects/${subject}`)).statusCode).toBe(200);
    }
    await t.stop();
  });
  afterAll(() => t.close());

  it('builds what the projector builds page by page: every document, tombstone, position and counter, and the same indexes', async () => {
    const live = join(t.dataDir, 'sandbox.read.db');
    // The server's read models, finished page by page up to the end of the log (the catch-up never starts).
    await project(t.dataDir, live, false);
    const expected = contents(live);
    expect(expected.documents.length).toBeGreaterThan(30);
    expect(expected.counters.length).toBeGreaterThanOrEqual(8);
    // Fresh files caught up in one scan: in pages of 16 events, committed every 24 documents or counted events; and
    // committed after every page of 4, so that documents span commits.
    const limits: CatchUpLimits[] = [
      { page: 16, hold: 24 },
      { page: 4, hold: 1 },
    ];
    for (const [i, limit] of limits.entries()) {
      const fresh = join(t.dataDir, `rebuilt-${i}.read.db`);
      expect((await project(t.dataDir, fresh, limit)).pagesRead).toContain(limit.page);
      expect(contents(fresh)).toEqual(expected);
    }
  });
});
