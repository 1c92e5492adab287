import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/settings/config.js';
import { checkBackends } from '../../src/wiring/backend-checks.js';
import { client } from '../support/api-client.js';
import { runCliInProcess } from '../support/cli.js';
import { type PostgresCluster, postgresBinDir, sharedPostgres, startPostgresCluster } from '../support/postgres-cluster.js';
import { tempDir } from '../support/temp-dir.js';
import { openTestApp, type TestApp } from '../support/test-app.js';

const run = promisify(execFile);
const shared = sharedPostgres();

/** One of PostgreSQL's client programs, as an operator runs it (it connects over TCP; it may run as root). */
const pgClient = (program: string, args: string[]) => run(join(postgresBinDir!, program), args, { encoding: 'utf8' });

describe.skipIf(postgresBinDir === undefined)('a pg_dump restored into a fresh cluster, checked with nature audit', () => {
  const dumps = tempDir('nature-pg-dump-');
  let t: TestApp | undefined;
  let fresh: PostgresCluster | undefined;
  afterAll(async () => {
    await t?.close();
    await fresh?.stop();
    await shared.stopShared();
    dumps.cleanup();
  });

  it('restores the log and read models as the service role, and every entry reads as it did, erased ones erased', async () => {
    const source = await shared.database();
    const onPostgres = { NATURE_EVENT_STORE: 'postgres', NATURE_READ_MODELS: 'postgres' };
    t = await openTestApp({ ...onPostgres, POSTGRES_URL: source });
    const api = client(t, (await t.mint('test', 'sk')).raw);
    const kept = await api.completeAssessment();
    await api.profileOf(kept.subjectId);
    const erased = await api.completeAssessment();
    expect((await api.call('DELETE', `/v1/nature/subjects/${erased.subjectId}`)).status).toBe(200);
    const audit = (url: string, subjectId: string) =>
      runCliInProcess(['audit', subjectId, '--env', 'test', '--json'], { NATURE_DATA_DIR: t!.dataDir, ...onPostgres, POSTGRES_URL: url });
    const before = [await audit(source, kept.subjectId), await audit(source, erased.subjectId)];
    await t.stop();

    // The backup as docs/operations.md gives it: the database in pg_dump's custom format (the data keys and the
    // master key, in the data directory until they move to PostgreSQL, are kept as they are).
    const dump = join(dumps.path, 'nature.dump');
    await pgClient('pg_dump', ['--format=custom', `--file=${dump}`, `--dbname=${source}`]);
    fresh = await startPostgresCluster();
    const admin = postgres(`postgres://postgres@127.0.0.1:${fresh.port}/postgres`, { max: 1, onnotice: () => undefined });
    await admin.unsafe('CREATE DATABASE restored');
    await admin.unsafe('CREATE ROLE nature_app LOGIN');
    await admin.unsafe('GRANT CREATE ON DATABASE restored TO nature_app');
    await admin.end();
    await pgClient('pg_restore', [
      '--no-owner',
      '--role=nature_app',
      '--exit-on-error',
      `--dbname=postgres://postgres@127.0.0.1:${fresh.port}/restored`,
      dump,
    ]);

    const restored = `postgres://nature_app@127.0.0.1:${fresh.port}/restored`;
    // The role owns what it restored: the start-up checks pass, the migrations find nothing to do.
    await checkBackends(loadConfig({ ...onPostgres, POSTGRES_URL: restored }), { bus: false, eventStore: true });
    const after = [await audit(restored, kept.subjectId), await audit(restored, erased.subjectId)];
    for (const [i, result] of after.entries()) {
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toBe(before[i]!.stdout);
    }
    const entries = (result: { stdout: string }) => JSON.parse(result.stdout).data as { personal_data: string }[];
    // Entries that carry personal data (the subject's creation) read it; none read as erased but the erased subject's.
    const kinds = (result: { stdout: string }) => new Set(entries(result).map((entry) => entry.personal_data));
    expect(kinds(after[0]!)).toEqual(new Set(['present', 'none']));
    expect(kinds(after[1]!)).toContain('erased');
    expect(kinds(after[1]!)).not.toContain('present');
  });
});
