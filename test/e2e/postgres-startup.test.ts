import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkServerVersion } from '../../src/adapters/postgres/probe.js';
import { loadConfig } from '../../src/settings/config.js';
import { checkBackends } from '../../src/wiring/backend-checks.js';
import { client } from '../support/api-client.js';
import { knownProfile } from '../support/known-answers.js';
import { type PostgresCluster, postgresBinDir, startPostgresCluster } from '../support/postgres-cluster.js';
import { freePort, runServerToExit } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { openTestApp } from '../support/test-app.js';
import { makeTestPki } from '../support/tls.js';

/** The passwords the cluster's roles log in with: none may appear in a line the service prints. */
const APP_PASSWORD = 'app-s3cret-5f1c';
const BARE_PASSWORD = 'bare-s3cret-9d2e';

/** The start-up line for `env`'s POSTGRES_URL (both stores on PostgreSQL), or undefined when every check passed. */
async function startupLine(env: Record<string, string>): Promise<string | undefined> {
  const config = loadConfig({ NATURE_EVENT_STORE: 'postgres', NATURE_READ_MODELS: 'postgres', NATURE_BACKEND_TIMEOUT_MS: '10000', ...env });
  return checkBackends(config, { bus: false, eventStore: true }).then(
    () => undefined,
    (error: unknown) => (error as Error).message,
  );
}

/** A line an operator reads: one line, no password of the cluster's roles in it. */
function expectOperatorLine(line: string | undefined, pattern: RegExp): void {
  expect(line).toMatch(pattern);
  expect(line).not.toContain('\n');
  for (const secret of [APP_PASSWORD, BARE_PASSWORD, 'wrong-pw-4411']) expect(line).not.toContain(secret);
}

describe.skipIf(postgresBinDir === undefined)('PostgreSQL start-up checks and TLS, on a server with passwords and TLS', () => {
  const dir = tempDir('nature-pg-ops-');
  const pki = makeTestPki(dir.path);
  const stranger = tempDir('nature-pg-stranger-');
  const strangerCa = makeTestPki(stranger.path).caFile;
  let cluster: PostgresCluster;
  let admin: postgres.Sql;
  /** A URL on the cluster's `database` as `user` (password in the URL when given), with `query`. */
  const urlOf = (
    user: string,
    {
      password,
      host = '127.0.0.1',
      database = 'nature',
      query = '',
    }: { password?: string; host?: string; database?: string; query?: string } = {},
  ) => `postgres://${user}${password === undefined ? '' : `:${password}`}@${host}:${cluster.port}/${database}${query}`;
  const passwordFile = join(dir.path, 'postgres-password');

  beforeAll(async () => {
    cluster = await startPostgresCluster({
      // The superuser over the socket and on loopback for the test's own setup; every other role with a password.
      hba: ['local all all trust', 'host all postgres 127.0.0.1/32 trust', 'host all all 127.0.0.0/8 scram-sha-256'],
      tls: pki.server,
      // 127.0.0.2 is this machine too, a name its certificate does not carry.
      listen: '127.0.0.1,127.0.0.2',
    });
    admin = postgres(`postgres://postgres@127.0.0.1:${cluster.port}/postgres`, { max: 1, onnotice: () => undefined });
    await admin.unsafe('CREATE DATABASE nature');
    await admin.unsafe(`CREATE ROLE nature_app LOGIN PASSWORD '${APP_PASSWORD}'`);
    await admin.unsafe(`CREATE ROLE nature_bare LOGIN PASSWORD '${BARE_PASSWORD}'`);
    // The one GRANT the service's role needs (docs/operations.md, "PostgreSQL"): it makes and owns its schemas.
    await admin.unsafe('GRANT CREATE ON DATABASE nature TO nature_app');
    writeFileSync(passwordFile, `${APP_PASSWORD}\n`, { mode: 0o600 });
  });
  afterAll(async () => {
    await admin?.end();
    await cluster?.stop();
    dir.cleanup();
    stranger.cleanup();
  });

  it('stops start-up naming POSTGRES_URL when the server refuses the password, never showing it', async () => {
    expectOperatorLine(
      await startupLine({ POSTGRES_URL: urlOf('nature_app', { password: 'wrong-pw-4411' }) }),
      /^PostgreSQL at 127\.0\.0\.1:\d+ \(POSTGRES_URL\) refused the login \(password authentication failed for user "nature_app"\): check the user and password in POSTGRES_URL$/,
    );
  });

  it('stops the server process in one line when the password file holds a refused password, never printing it', async () => {
    const wrong = join(dir.path, 'wrong-password');
    writeFileSync(wrong, 'wrong-pw-4411\n', { mode: 0o600 });
    const result = runServerToExit({
      NATURE_DATA_DIR: join(dir.path, 'data'),
      PORT: String(await freePort()),
      LOG_LEVEL: 'trace',
      NATURE_EVENT_STORE: 'postgres',
      NATURE_READ_MODELS: 'postgres',
      POSTGRES_URL: urlOf('nature_app', { query: `?sslmode=verify-full&sslrootcert=${pki.caFile}` }),
      POSTGRES_PASSWORD_FILE: wrong,
    });
    expect(result.status, result.stdout + result.stderr).toBe(1);
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        /^start-up error: PostgreSQL at 127\.0\.0\.1:\d+ \(POSTGRES_URL\) refused the login \(.*"nature_app"\): check the user and password in POSTGRES_URL and POSTGRES_PASSWORD_FILE$/,
      ),
    ]);
    expect(result.stdout + result.stderr).not.toContain('wrong-pw-4411');
  });

  it('stops start-up naming POSTGRES_URL when the URL names no database or no host there is', async () => {
    const noDatabase = urlOf('nature_app', { password: APP_PASSWORD, database: 'natur' });
    expectOperatorLine(
      await startupLine({ POSTGRES_URL: noDatabase }),
      /^PostgreSQL at 127\.0\.0\.1:\d+ \(POSTGRES_URL\) has no such database \(database "natur" does not exist\): check the database in POSTGRES_URL$/,
    );
    expectOperatorLine(
      await startupLine({ POSTGRES_URL: `postgres://nature_app:${APP_PASSWORD}@no-such-host.invalid:5432/nature` }),
      /^PostgreSQL at no-such-host\.invalid:5432 \(POSTGRES_URL\) did not answer: .*ENOTFOUND/,
    );
  });

  it('stops start-up naming the GRANT when the role may not create its schemas, where it used to fail on first use', async () => {
    expectOperatorLine(
      await startupLine({ POSTGRES_URL: urlOf('nature_bare', { password: BARE_PASSWORD }) }),
      /^PostgreSQL at 127\.0\.0\.1:\d+ \(POSTGRES_URL\) does not let role "nature_bare" create schemas in database "nature": GRANT CREATE ON DATABASE nature TO nature_bare$/,
    );
  });

  it('names a schema or a table of another role, as a restore run by a superuser leaves them', async () => {
    await admin.unsafe('CREATE DATABASE restored');
    await admin.unsafe('GRANT CREATE ON DATABASE restored TO nature_app');
    const restored = postgres(`postgres://postgres@127.0.0.1:${cluster.port}/restored`, { max: 1, onnotice: () => undefined });
    const url = urlOf('nature_app', { password: APP_PASSWORD, database: 'restored' });
    try {
      await restored.unsafe('CREATE SCHEMA nature_production');
      expectOperatorLine(
        await startupLine({ POSTGRES_URL: url }),
        /^PostgreSQL at .* \(POSTGRES_URL\) does not let role "nature_app" use schema nature_production: ALTER SCHEMA nature_production OWNER TO nature_app$/,
      );
      await restored.unsafe('ALTER SCHEMA nature_production OWNER TO nature_app; CREATE TABLE nature_production.events (id int)');
      expectOperatorLine(
        await startupLine({ POSTGRES_URL: url }),
        /^PostgreSQL at .* \(POSTGRES_URL\) has table nature_production\.events of role "postgres", which role "nature_app" may not change: ALTER TABLE nature_production\.events OWNER TO nature_app/,
      );
      await restored.unsafe('ALTER TABLE nature_production.events OWNER TO nature_app');
      expect(await startupLine({ POSTGRES_URL: url })).toBeUndefined();
    } finally {
      await restored.end();
    }
  });

  it('accepts the version the real server reports, which the check would refuse below 14', async () => {
    const [row] = await admin<{ server_version_num: string }[]>`SHOW server_version_num`;
    expect(Number(row!.server_version_num)).toBeGreaterThanOrEqual(140_000);
    expect(() => checkServerVersion(row!.server_version_num)).not.toThrow();
    // The same number as a server a major release below the minimum would report it.
    expect(() => checkServerVersion(String(130_000 + (Number(row!.server_version_num) % 10_000)))).toThrow(
      /^runs version 13; the service needs PostgreSQL 14 or newer/,
    );
  });

  it('runs on verify-full TLS with a CA file and a password file, the role holding CREATE on the database alone', async () => {
    const env = {
      NATURE_EVENT_STORE: 'postgres',
      NATURE_READ_MODELS: 'postgres',
      POSTGRES_URL: urlOf('nature_app', { query: `?sslmode=verify-full&sslrootcert=${pki.caFile}` }),
      POSTGRES_PASSWORD_FILE: passwordFile,
    };
    expect(await startupLine(env)).toBeUndefined();
    const t = await openTestApp(env);
    try {
      const api = client(t, (await t.mint('test', 'sk')).raw);
      const { subjectId } = await api.completeAssessment();
      expect(await api.profileOf(subjectId)).toMatchObject(knownProfile);
      // The service's connections are encrypted: the server says so of every one its role holds.
      const sessions = await admin<{ ssl: boolean }[]>`
        SELECT s.ssl FROM pg_stat_ssl s JOIN pg_stat_activity a USING (pid) WHERE a.usename = 'nature_app'`;
      expect(sessions.length).toBeGreaterThan(0);
      expect(sessions.every((session) => session.ssl)).toBe(true);
      // Logged at debug, every line: the password read from the file is in none of them.
      expect(t.logs.length).toBeGreaterThan(0);
      expect(t.logs.join('')).not.toContain(APP_PASSWORD);
    } finally {
      await t.close();
    }
  });

  it('refuses to start on a certificate of another CA or for another host name, in one line', async () => {
    const withCa = (ca: string, host = '127.0.0.1') =>
      startupLine({
        POSTGRES_URL: urlOf('nature_app', { host, query: `?sslmode=verify-full&sslrootcert=${ca}` }),
        POSTGRES_PASSWORD_FILE: passwordFile,
      });
    expectOperatorLine(
      await withCa(strangerCa),
      /^PostgreSQL at 127\.0\.0\.1:\d+ \(POSTGRES_URL\) presented a certificate this service does not trust \(.+\): check sslrootcert and the host name in POSTGRES_URL$/,
    );
    expectOperatorLine(
      await withCa(pki.caFile, '127.0.0.2'),
      /^PostgreSQL at 127\.0\.0\.2:\d+ \(POSTGRES_URL\) presented a certificate this service does not trust \(.*127\.0\.0\.2.*\): check sslrootcert/,
    );
    expectOperatorLine(
      await withCa(join(dir.path, 'no-such-ca.pem')),
      /^POSTGRES_URL sslrootcert .*no-such-ca\.pem does not exist \(ENOENT\)$/,
    );
  });
});
