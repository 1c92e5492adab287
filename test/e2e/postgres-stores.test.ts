import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SHARED_POOL_MAX } from '../../src/adapters/postgres/client.js';
import { runCliInProcess } from '../support/cli.js';
import { postgresBinDir, sharedPostgres } from '../support/postgres-cluster.js';
import { runServerToExit, type ServerProcess, startServer } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { validSubject } from '../support/test-app.js';

const shared = sharedPostgres();
afterAll(() => shared.stopShared());

const mintArgs = ['keys', 'create', '--env', 'test', '--type', 'sk', '--scope', 'nature:write', 'nature:read', '--json', '--name'];

describe.skipIf(postgresBinDir === undefined)(
  'every store on PostgreSQL (NATURE_READ_MODELS=postgres, NATURE_EVENT_STORE=postgres)',
  () => {
    let dir: ReturnType<typeof tempDir>;
    let data: string;
    let url: string;
    let server: ServerProcess | undefined;
    beforeEach(async () => {
      dir = tempDir();
      data = join(dir.path, 'data');
      url = await (await shared.cluster()).createDatabase();
    });
    afterEach(async () => {
      server?.process.kill('SIGTERM');
      await server?.exited;
      server = undefined;
      dir.cleanup();
    });
    const onPostgres = () => ({ NATURE_DATA_DIR: data, NATURE_READ_MODELS: 'postgres', NATURE_EVENT_STORE: 'postgres', POSTGRES_URL: url });
    const post = (key: string, idempotencyKey: string, subject = validSubject()) =>
      fetch(`${server!.url}/v1/nature/subjects`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
        body: JSON.stringify(subject),
      });

    it('mints a key, answers and replays an idempotent request, and keeps no key, account or idempotency file', async () => {
      const minted = await runCliInProcess([...mintArgs, 'backend'], onPostgres());
      expect(minted.status, minted.stderr).toBe(0);
      const { id, key } = JSON.parse(minted.stdout) as { id: string; key: string };
      server = await startServer(onPostgres());

      const subject = validSubject();
      const first = await post(key, 'create-1', subject);
      expect(first.status).toBe(201);
      const firstBody = await first.text();
      const replay = await post(key, 'create-1', subject);
      expect(replay.status).toBe(201);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(await replay.text()).toBe(firstBody);

      // Many requests at once, each with a key of its own: the pools grow to their bound, not beyond.
      const burst = await Promise.all(Array.from({ length: 60 }, (_, i) => post(key, `burst-${i}`)));
      expect(burst.map((response) => response.status)).toEqual(Array(60).fill(201));

      const sql = postgres(url, { max: 1, onnotice: () => undefined });
      const [keys] = await sql<{ ids: string[] }[]>`SELECT array_agg(id) AS ids FROM nature_keys.api_keys`;
      expect(keys!.ids).toEqual([id]);
      const [claims] = await sql<{ n: string }[]>`SELECT count(*) AS n FROM nature_sandbox.idempotency_keys WHERE response IS NOT NULL`;
      expect(claims!.n).toBe('61');
      // The subject's personal fields were sealed with its data key, kept wrapped by the master key.
      const [dataKeys] = await sql<{ n: string }[]>`SELECT count(*) AS n FROM nature_sandbox.data_keys WHERE key IS NOT NULL`;
      expect(Number(dataKeys!.n)).toBeGreaterThan(0);
      // One pool per schema (sandbox, production, nature_keys) and a listening connection per environment's log.
      const [connections] = await sql<{ n: string }[]>`
      SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'nature-profile-api'`;
      expect(Number(connections!.n)).toBeLessThanOrEqual(3 * SHARED_POOL_MAX + 2);
      await sql.end();

      // All that may be left in the data directory: the master key (kept apart from the keys it wraps, by design). The
      // embedded bus is beside the log, on PostgreSQL too (NATS not configured).
      expect(readdirSync(data)).toEqual(['master.key']);
    });

    it('refuses to start while keys.db holds keys PostgreSQL lacks, until "nature keys import" copies them', async () => {
      const sqlite = { NATURE_DATA_DIR: data };
      const old = JSON.parse((await runCliInProcess([...mintArgs, 'before-the-move'], sqlite)).stdout) as { id: string; key: string };

      const refused = runServerToExit(onPostgres());
      expect(refused.status).toBe(1);
      expect(refused.stderr.trim()).toMatch(
        /^start-up error: .*\/data\/keys\.db holds 1 API key\(s\) that are not in PostgreSQL, where keys are kept with NATURE_READ_MODELS=postgres: run "nature keys import" once/,
      );

      const imported = await runCliInProcess(['keys', 'import'], onPostgres());
      expect(imported.status, imported.stderr).toBe(0);
      expect(imported.stdout).toMatch(/^imported 1 key\(s\) into PostgreSQL; 0 were there already/);
      expect(imported.stderr).toMatch(
        /keys\.db is no longer read; remove it \(the server refuses to start while it holds keys that PostgreSQL lacks\)/,
      );

      server = await startServer(onPostgres());
      expect((await post(old.key, 'after-the-move')).status).toBe(201);
    });
  },
);
