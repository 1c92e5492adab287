import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { SqliteRequestLogStore } from '../../src/adapters/sqlite/request-log-store.js';
import type { NotedRequest } from '../../src/http/request-record.js';
import { CAPACITY, RequestRecorder } from '../../src/http/request-recorder.js';
import type { RequestLogStore, RequestRecord } from '../../src/ports/request-log.js';
import { createLogger } from '../../src/support/logger.js';
import { requestLogPruning } from '../../src/wiring/request-log-pruning.js';
import { record } from '../contract/request-log-store.contract.js';
import { eventually } from '../support/eventually.js';
import { tempDir } from '../support/temp-dir.js';

function capturedLogger() {
  const lines: Record<string, unknown>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger('info', sink), lines };
}

const noted = (n: number): NotedRequest => ({
  id: `req_${n}`,
  at: n,
  method: 'GET',
  route: '/v1/nature/subjects',
  url: '/v1/nature/subjects',
  status: 200,
  duration_ms: 1,
  key_id: 'key_A',
  key_hint: 'test_sk_…Ab12',
  idempotency_key: null,
  body: undefined,
  problem: null,
});

/** A store that keeps what it is given, failing the appends `failing` says. */
function memoryStore(failing: () => boolean = () => false) {
  const kept: RequestRecord[] = [];
  const store = {
    kept,
    async append(records: readonly RequestRecord[]) {
      if (failing()) throw new Error('store down');
      kept.push(...records);
    },
  };
  return store as typeof store & RequestLogStore;
}

describe('the request recorder', () => {
  it('writes nothing while requests are noted, then each environment its own batch, in order', async () => {
    const stores = { test: memoryStore(), live: memoryStore() };
    const recorder = new RequestRecorder(
      (environment) => stores[environment],
      new Set(['v1', 'nature', 'subjects']),
      capturedLogger().logger,
    );
    for (const n of [1, 2, 3]) recorder.note(n === 2 ? 'live' : 'test', noted(n));
    expect(stores.test.kept).toEqual([]);
    await recorder.flush();
    expect(stores.test.kept.map((each) => each.id)).toEqual(['req_1', 'req_3']);
    expect(stores.live.kept.map((each) => each.id)).toEqual(['req_2']);
  });

  it('puts a batch that failed back ahead of newer requests, and writes it with the next', async () => {
    let down = true;
    const store = memoryStore(() => down);
    const { logger, lines } = capturedLogger();
    const recorder = new RequestRecorder(() => store, new Set(), logger);
    recorder.note('test', noted(1));
    recorder.note('test', noted(2));
    await recorder.flush();
    expect(lines.map((line) => line.msg)).toContain('request log not written; tried again with the next');
    recorder.note('test', noted(3));
    down = false;
    await recorder.flush();
    expect(store.kept.map((each) => each.id)).toEqual(['req_1', 'req_2', 'req_3']);
  });

  it('keeps the newest requests when full, never waiting, and says how many it dropped', async () => {
    const store = memoryStore();
    const { logger, lines } = capturedLogger();
    const recorder = new RequestRecorder(() => store, new Set(), logger);
    for (let n = 0; n < CAPACITY + 5; n += 1) recorder.note('test', noted(n));
    await recorder.flush();
    expect(store.kept).toHaveLength(CAPACITY);
    expect(store.kept[0]!.id).toBe('req_5');
    expect(lines.find((line) => line.msg === 'request log: requests dropped, the store did not keep up')).toMatchObject({ dropped: 5 });
  });
});

describe('the request log pruning', () => {
  it('removes what is older than the retention as it starts, and keeps the rest', async () => {
    const dir = tempDir();
    const store = new SqliteRequestLogStore(join(dir.path, 'sandbox.requests.db'), 'NORMAL');
    const now = Date.parse('2026-11-29T12:00:00.000Z');
    const day = 86_400_000;
    const [old, recent] = [record(0, { at: now - 31 * day }), record(0, { at: now - 29 * day })];
    await store.append([old, recent]);
    const pruning = requestLogPruning(store, 30 * day, () => new Date(now), capturedLogger().logger);
    pruning.start();
    await eventually(async () => ((await store.get(old.id)) === undefined ? true : undefined));
    await pruning.stop();
    expect((await store.list({}, { limit: 10 })).data).toEqual([recent]);
    await store.close();
    dir.cleanup();
  });
});
