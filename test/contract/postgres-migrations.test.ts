import { afterAll, describe, expect, it } from 'vitest';
import { openPostgres } from '../../src/adapters/postgres/client.js';
import { PostgresEventStore } from '../../src/adapters/postgres/event-store.js';
import { migrate, type PostgresStep } from '../../src/adapters/postgres/migrations.js';
import { postgresBinDir, sharedPostgres } from '../support/postgres-cluster.js';

const shared = sharedPostgres();
afterAll(() => shared.stopShared());

let schemas = 0;
const newSchema = () => `migrated_${++schemas}`;

/** Steps that count their runs in a table step 1 makes, so two runs of a step would show. */
const countingSteps = (count: number): PostgresStep[] => [
  { version: 1, does: 'the runs table', run: async (tx) => void (await tx`CREATE TABLE runs (step int NOT NULL)`) },
  ...Array.from(
    { length: count - 1 },
    (_, i): PostgresStep => ({
      version: i + 2,
      does: `step ${i + 2}`,
      run: async (tx) => void (await tx`INSERT INTO runs VALUES (${i + 2})`),
    }),
  ),
];

describe.skipIf(postgresBinDir === undefined)('postgres migrations', () => {
  it('runs each step once when several replicas start on a new schema together', async () => {
    const url = await shared.database();
    const schema = newSchema();
    const replicas = Array.from({ length: 6 }, () => openPostgres(url, schema, { max: 1 }));
    const ran = await Promise.all(replicas.map((sql) => migrate(sql, schema, 'store', countingSteps(5))));
    expect(ran.reduce((sum, n) => sum + n, 0)).toBe(5);
    const runs = await replicas[0]!<{ step: number }[]>`SELECT step FROM runs ORDER BY step`;
    expect(runs.map((r) => r.step)).toEqual([2, 3, 4, 5]);
    expect(await migrate(replicas[0]!, schema, 'store', countingSteps(5))).toBe(0);
    await Promise.all(replicas.map((sql) => sql.end()));
  });

  it('leaves a store killed in a step at the step before, naming the step that failed', async () => {
    const url = await shared.database();
    const schema = newSchema();
    const sql = openPostgres(url, schema);
    const failing: PostgresStep = {
      version: 2,
      does: 'a step that breaks half-way',
      run: async (tx) => {
        await tx`CREATE TABLE half_made (n int)`;
        await tx`SELECT 1 / 0`;
      },
    };
    await expect(migrate(sql, schema, 'store', [countingSteps(1)[0]!, failing])).rejects.toThrow(
      'store: step 2 (a step that breaks half-way) failed: division by zero',
    );
    const [made] = await sql<{ exists: boolean }[]>`SELECT to_regclass('half_made') IS NOT NULL AS exists`;
    expect(made!.exists).toBe(false);
    expect(await migrate(sql, schema, 'store', countingSteps(2))).toBe(1);
    await sql.end();
  });

  it('refuses a store a newer version upgraded, and one behind when opened as it is', async () => {
    const url = await shared.database();
    const schema = newSchema();
    const sql = openPostgres(url, schema);
    await migrate(sql, schema, 'store', countingSteps(3));
    await expect(migrate(sql, schema, 'store', countingSteps(2))).rejects.toThrow(/at data version 3, written by a newer version/);
    await expect(migrate(sql, schema, 'store', countingSteps(4), true)).rejects.toMatchObject({ name: 'StoreBehindError' });
    await expect(migrate(sql, schema, 'other', countingSteps(1), true)).rejects.toMatchObject({ name: 'StoreBehindError' });
    await sql.end();
  });

  it('makes one log for event stores opened together on a new schema', async () => {
    const url = await shared.database();
    const schema = newSchema();
    const stores = Array.from({ length: 4 }, () => new PostgresEventStore(url, schema));
    const results = await Promise.all(
      stores.map((store, i) =>
        store.appendToStream(`s-${i}`, [{ id: crypto.randomUUID(), type: 'T', data: {}, metadata: {} }], 'no_stream'),
      ),
    );
    expect(new Set(results.map((r) => r.position)).size).toBe(4);
    const sql = openPostgres(url, schema);
    expect(await sql`SELECT store, version FROM _versions`).toEqual([{ store: 'events', version: 1 }]);
    await Promise.all([sql.end(), ...stores.map((store) => store.close())]);
  });
});
