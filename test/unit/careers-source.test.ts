import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteCatalogueStore } from '../../src/adapters/sqlite/catalogue-store.js';
import type { CatalogueStore } from '../../src/ports/careers-catalogue.js';
import { type CareersSource, openCareersSource } from '../../src/wiring/careers-source.js';
import { smallCatalogue } from '../support/careers-fixture.js';
import { eventually } from '../support/eventually.js';
import { tempDir } from '../support/temp-dir.js';

describe('careers source', () => {
  const dir = tempDir();
  afterAll(() => dir.cleanup());
  // Each test's careers.db of its own.
  let file = '';
  let files = 0;
  beforeEach(() => {
    file = join(dir.path, `careers-${++files}.db`);
  });
  const opened: CareersSource[] = [];
  afterEach(async () => {
    for (const source of opened.splice(0)) await source.close();
  });

  /** A server's source, and the operator's store beside it on the same file. */
  async function serverAndImport(store: CatalogueStore = new SqliteCatalogueStore(file, 'FULL'), logger = pino({ level: 'silent' })) {
    const source = await openCareersSource(store, logger, 20);
    opened.push(source);
    return { source, operator: new SqliteCatalogueStore(file, 'FULL') };
  }

  it('has no index before an import, then picks up each catalogue installed without a restart', async () => {
    const { source, operator } = await serverAndImport();
    expect(source.current()).toBeUndefined();
    await operator.install(smallCatalogue());
    expect(await eventually(async () => source.current()?.version)).toBe('onet-27.0/careers-map-v1');
    await operator.install({ ...smallCatalogue(), release: '28.0' });
    expect(await eventually(async () => (source.current()?.version === 'onet-28.0/careers-map-v1' ? true : undefined))).toBe(true);
    expect(source.current()?.release).toBe('28.0');
    await operator.close();
  });

  it('keeps serving the previous catalogue while the store fails, and logs it', async () => {
    const store = new SqliteCatalogueStore(file, 'FULL');
    await store.install(smallCatalogue());
    let failing = false;
    const flaky: CatalogueStore = {
      current: () => (failing ? Promise.reject(new Error('store gone away')) : store.current()),
      load: (id) => store.load(id),
      install: (catalogue) => store.install(catalogue),
      close: () => store.close(),
    };
    const logged: string[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => logged.push(line) });
    const { source, operator } = await serverAndImport(flaky, logger);
    const before = source.current();
    expect(before?.version).toBe('onet-27.0/careers-map-v1');
    failing = true;
    await operator.install({ ...smallCatalogue(), release: '28.0' });
    await eventually(async () => (logged.some((line) => line.includes('store gone away')) ? true : undefined));
    expect(source.current()).toBe(before);
    failing = false;
    expect(await eventually(async () => (source.current()?.version === 'onet-28.0/careers-map-v1' ? true : undefined))).toBe(true);
    await operator.close();
  });
});
