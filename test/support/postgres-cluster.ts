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

/**
 * A PostgreSQL cluster of its own: initdb into a fresh temporary folder, started by pg_ctl on a free loopback port
 * with its unix socket in that folder, so no system service or other cluster is touched. One per test file.
 * Tests run it with fsync off (a crash of the machine is not what they test); `durable` keeps PostgreSQL's own
 * defaults (fsync, full_page_writes), for the benchmarks, whose writes must cost what an operator's would.
 */
export async function startPostgresCluster(clusterOptions: ClusterOptions = {}): Promise<PostgresCluster> {
  if (postgresBinDir === undefined) throw new Error('PostgreSQL is not installed');
  const dir = tempDir('nature-pg-');
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const { stdout: group } = await run('id', ['-g', 'postgres'], { encoding: 'utf8' });
    postgresIds = { uid: Number(stdout.trim()), gid: Number(group.trim()) };
    chownSync(dir.path, postgresIds.uid, postgresIds.gid);
  }
  const data = join(dir.path, 'data');
  const log = join(dir.path, 'server.log');
  const port = await freePort();
  try {
    // Trust on loopback only: the cluster listens on 127.0.0.1 and its own socket folder, for this run's tests.
    await pgProgram('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
    const extra = clusterSettings(dir.path, data, clusterOptions);
    const sizing = clusterOptions.durable ? '-c shared_buffers=128MB' : '-c shared_buffers=32MB -c fsync=off';
    const options = `-p ${port} -k ${dir.path} ${extra} -c max_connections=200 ${sizing}`;
    await pgProgram('pg_ctl', ['start', '-w', '-D', data, '-l', log, '-o', options]);
  } catch (error) {
    const output = existsSync(log) ? readFileSync(log, 'utf8') : '';
    dir.cleanup();
    throw new Error(`PostgreSQL did not start: ${(error as Error).message}\n${output}`);
  }
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  return {
    port,
    async createDatabase() {
      databases += 1;
      const name = `nature_test_${process.pid}_${databases}`;
      const admin = postgres(url('postgres'), { max: 1, onnotice: () => undefined });
      await admin.unsafe(`CREATE DATABASE ${name}`);
      await admin.end();
      return url(name);
    },
    async stop() {
      await pgProgram('pg_ctl', ['stop', '-D', data, '-m', 'immediate']).catch(() => undefined);
      dir.cleanup();
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
