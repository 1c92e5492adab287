import { execFile } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import postgres from 'postgres';
import { freePort } from './processes.js';
import { tempDir } from './temp-dir.js';

const run = promisify(execFile);

/** The newest PostgreSQL's binaries Debian installed (/usr/lib/postgresql/N/bin), or undefined when there are none. */
export const postgresBinDir: string | undefined = (() => {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((name) => existsSync(join(root, name, 'bin', 'initdb'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  return newest === undefined ? undefined : join(root, newest, 'bin');
})();

if (postgresBinDir === undefined) {
  const message =
    '\n!!! POSTGRESQL TESTS SKIPPED: no /usr/lib/postgresql/*/bin/initdb on this machine. Install it (apt-get install -y\n' +
    '!!! postgresql; .ci/run does) and run npm test again. The skipped tests are reported as skipped, never as passed.\n';
  // CI installs it: there a missing server is a broken run, not a reason to skip the PostgreSQL contract suites.
  if (process.env.CI) throw new Error(message);
  console.error(message);
}

/** initdb refuses to run as root: as root, the cluster belongs to the `postgres` system user Debian's package makes. */
const asRoot = process.getuid?.() === 0;

/** Runs one of PostgreSQL's programs, as `postgres` when this process is root. */
async function pgProgram(program: string, args: string[]): Promise<string> {
  const path = join(postgresBinDir!, program);
  const [file, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, args];
  const { stdout } = await run(file, argv, { encoding: 'utf8' });
  return stdout;
}

export interface PostgresCluster {
  port: number;
  /** Its data directory (PGDATA). */
  dataDir: string;
  /** A new empty database on the cluster, its URL (user `postgres`, trusted on loopback). */
  createDatabase(): Promise<string>;
  /** `pg_ctl stop -m immediate` (as a crash would), then the folder removed. */
  stop(): Promise<void>;
}

let databases = 0;

/** How a test's cluster differs from the usual one (trust for every connection, no TLS, on 127.0.0.1 alone). */
export interface ClusterOptions {
  /** pg_hba.conf's lines in place of initdb's. */
  hba?: string[];
  /** TLS with this certificate and key (copied into the cluster's folder, where the server may read them). */
  tls?: { certFile: string; keyFile: string };
  /** listen_addresses, 127.0.0.1 unless given. */
  listen?: string;
  /** PostgreSQL's own durability (fsync on), for the benchmarks; tests run with fsync off. */
  durable?: boolean;
}

/** The settings every cluster runs with: its socket in its own folder, and speed over durability unless `durable`. */
const serverOptions = (port: number, socketDir: string, extra: string, durable = false) =>
  `-p ${port} -k ${socketDir} -c max_connections=200 ${durable ? '-c shared_buffers=128MB' : '-c shared_buffers=32MB -c fsync=off'} ${extra}`;

/** The server's -c settings for `options`, its files written into `dir` (the cluster's folder, owned by its user). */
function clusterSettings(dir: string, data: string, options: ClusterOptions): string {
  if (options.hba !== undefined) writeFileSync(join(data, 'pg_hba.conf'), `${options.hba.join('\n')}\n`);
  const settings = [`listen_addresses=${options.listen ?? '127.0.0.1'}`];
  if (options.tls !== undefined) {
    // The server refuses a key others may read; as root, the files are the `postgres` user's, as the folder is.
    const cert = join(dir, 'server.crt');
    const key = join(dir, 'server.key');
    copyFileSync(options.tls.certFile, cert);
    copyFileSync(options.tls.keyFile, key);
    chmodSync(key, 0o600);
    if (asRoot) for (const file of [cert, key]) chownSync(file, postgresIds!.uid, postgresIds!.gid);
    settings.push('ssl=on', `ssl_cert_file=${cert}`, `ssl_key_file=${key}`);
  }
  return settings.map((setting) => `-c ${setting}`).join(' ');
}

/** The `postgres` system user's uid and gid, read once when this process runs as root. */
let postgresIds: { uid: number; gid: number } | undefined;

/** A folder of its own for one cluster, the `postgres` user's when this process is root. */
async function clusterDir() {
  const dir = tempDir('nature-pg-');
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const { stdout: group } = await run('id', ['-g', 'postgres'], { encoding: 'utf8' });
    postgresIds = { uid: Number(stdout.trim()), gid: Number(group.trim()) };
    chownSync(dir.path, postgresIds.uid, postgresIds.gid);
  }
  return { dir, data: join(dir.path, 'data'), log: join(dir.path, 'server.log') };
}

/**
 * Runs `make` (which fills `data`), then starts the cluster with the settings `extra` gives once `data` is made; on
 * failure the folder goes and the server's log is shown.
 */
async function startIn(
  folder: Awaited<ReturnType<typeof clusterDir>>,
  make: () => Promise<unknown>,
  extra: () => string,
  durable?: boolean,
) {
  const { dir, data, log } = folder;
  const port = await freePort();
  try {
    await make();
    await pgProgram('pg_ctl', ['start', '-w', '-D', data, '-l', log, '-o', serverOptions(port, dir.path, extra(), durable)]);
  } catch (error) {
    const output = existsSync(log) ? readFileSync(log, 'utf8') : '';
    dir.cleanup();
    throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${output}`);
  }
  return port;
}

const urlOf = (hosts: string, database: string) => `postgres://postgres@${hosts}/${database}`;

function clusterOn(port: number, folder: Awaited<ReturnType<typeof clusterDir>>): PostgresCluster {
  return {
    port,
    dataDir: folder.data,
    async createDatabase() {
      databases += 1;
      const name = `nature_test_${process.pid}_${databases}`;
      const admin = postgres(urlOf(`127.0.0.1:${port}`, 'postgres'), { max: 1, onnotice: () => undefined });
      await admin.unsafe(`CREATE DATABASE ${name}`);
      await admin.end();
      return urlOf(`127.0.0.1:${port}`, name);
    },
    async stop() {
      await pgProgram('pg_ctl', ['stop', '-D', folder.data, '-m', 'immediate']).catch(() => undefined);
      folder.dir.cleanup();
    },
  };
}

/**
 * A PostgreSQL cluster of its own: initdb into a fresh temporary folder, started by pg_ctl on a free loopback port
 * with its unix socket in that folder, so no system service or other cluster is touched. One per test file.
 * Tests run it with fsync off (a crash of the machine is not what they test); `durable` keeps PostgreSQL's own
 * defaults (fsync, full_page_writes), for the benchmarks, whose writes must cost what an operator's would.
 */
export async function startPostgresCluster(clusterOptions: ClusterOptions = {}): Promise<PostgresCluster> {
  if (postgresBinDir === undefined) throw new Error('PostgreSQL is not installed');
  const folder = await clusterDir();
  // Trust on loopback only: the cluster listens on 127.0.0.1 and its own socket folder, for this run's tests. initdb's
  // pg_hba.conf also trusts replication connections from loopback, which a standby's pg_basebackup and walreceiver use.
  const port = await startIn(
    folder,
    () => pgProgram('initdb', ['-D', folder.data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']),
    // A standby needs the primary's WAL to carry what it replays and a sender to stream it (both the defaults, said here).
    () => `${clusterSettings(folder.dir.path, folder.data, clusterOptions)} -c wal_level=replica -c max_wal_senders=4`,
    clusterOptions.durable,
  );
  return clusterOn(port, folder);
}

/** The application name the standby streams under, which the primary's synchronous_standby_names names. */
const STANDBY_NAME = 'nature_standby';

/** Waits (bounded, for a hung start) until the primary streams to the standby as its synchronous one. */
async function untilSynchronous(admin: postgres.Sql): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const [row] = await admin<{ sync_state: string }[]>`
      SELECT sync_state FROM pg_stat_replication WHERE application_name = ${STANDBY_NAME} AND state = 'streaming'`;
    if (row?.sync_state === 'sync') return;
    if (Date.now() > deadline) throw new Error(`the standby is not a synchronous one: ${JSON.stringify(row)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

export interface ReplicatedPostgres {
  primary: PostgresCluster;
  standby: PostgresCluster;
  /** A new database (made on the primary, streamed to the standby), its URL naming both: the primary first. */
  createDatabase(): Promise<string>;
  /** SIGKILL of the primary's postmaster (the pid in postmaster.pid), as a machine's crash would end it. */
  killPrimary(): Promise<void>;
  /** `pg_ctl promote -w`: the standby replays what it received and becomes writable. */
  promote(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * A primary with one synchronous standby (a pg_basebackup -R of it, streaming on a port of its own). Each commit on
 * the primary returns once the standby has flushed its WAL (`synchronous_commit=on`), so after a promotion the
 * standby holds every commit the primary acknowledged.
 */
export async function startReplicatedPostgres(): Promise<ReplicatedPostgres> {
  const primary = await startPostgresCluster();
  const folder = await clusterDir();
  const port = await startIn(
    folder,
    () =>
      pgProgram('pg_basebackup', [
        '-D',
        folder.data,
        '-h',
        '127.0.0.1',
        '-p',
        String(primary.port),
        '-U',
        'postgres',
        '-X',
        'stream',
        '-R',
      ]),
    // The walreceiver connects under cluster_name: the name synchronous_standby_names waits for.
    () => `-c listen_addresses=127.0.0.1 -c cluster_name=${STANDBY_NAME} -c hot_standby=on`,
  ).catch(async (error: unknown) => {
    await primary.stop();
    throw error;
  });
  const standby = clusterOn(port, folder);
  const admin = postgres(urlOf(`127.0.0.1:${primary.port}`, 'postgres'), { max: 1, onnotice: () => undefined });
  try {
    await admin.unsafe(`ALTER SYSTEM SET synchronous_standby_names = '${STANDBY_NAME}'`);
    await admin.unsafe(`ALTER SYSTEM SET synchronous_commit = 'on'`);
    await admin`SELECT pg_reload_conf()`;
    await untilSynchronous(admin);
  } finally {
    await admin.end();
  }
  return {
    primary,
    standby,
    async createDatabase() {
      const url = new URL(await primary.createDatabase());
      return urlOf(`127.0.0.1:${primary.port},127.0.0.1:${standby.port}`, `${url.pathname.slice(1)}?target_session_attrs=read-write`);
    },
    async killPrimary() {
      const pid = Number(readFileSync(join(primary.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
      process.kill(pid, 'SIGKILL');
    },
    promote: () => pgProgram('pg_ctl', ['promote', '-w', '-D', folder.data]).then(() => undefined),
    async stop() {
      await standby.stop();
      await primary.stop();
    },
  };
}
/**
 * One cluster for a test file, started by its first use, and one database on it: `stopShared` (in the file's
 * afterAll) stops the cluster if it was started.
 */
export function sharedPostgres() {
  let cluster: Promise<PostgresCluster> | undefined;
  let database: Promise<string> | undefined;
  const started = () => {
    cluster ??= startPostgresCluster();
    return cluster;
  };
  return {
    cluster: started,
    database: () => {
      database ??= started().then((running) => running.createDatabase());
      return database;
    },
    async stopShared() {
      if (cluster) await (await cluster).stop();
    },
  };
}
