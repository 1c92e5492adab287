import { natsServerPath, startNatsServer } from '../../test/support/nats-server.js';
import { postgresBinDir, startPostgresCluster } from '../../test/support/postgres-cluster.js';

/**
 * A configuration the service is measured on, and the anchor's durable write on the same kind of store: the
 * embedded default (SQLite files, the embedded bus), and the production stack on servers (the log and the read
 * models on PostgreSQL, the bus on NATS JetStream).
 */
export interface BenchBackend {
  name: string;
  /** The service's settings for it. */
  env: Record<string, string>;
  /** The anchor's: a PostgreSQL database of the same cluster for the PostgreSQL row, a file otherwise. */
  anchorEnv(databaseFile: string): Record<string, string>;
  stop(): Promise<void>;
}

const names = ['sqlite', 'postgres'] as const;
type BackendName = (typeof names)[number];

/** BENCH_BACKENDS=sqlite,postgres (the default) narrows a run; a backend the machine cannot run is left out, loudly. */
export function backendsAsked(): BackendName[] {
  const asked = (process.env.BENCH_BACKENDS ?? names.join(',')).split(',');
  const unknown = asked.filter((name) => !names.includes(name as BackendName));
  if (unknown.length > 0) throw new Error(`BENCH_BACKENDS: unknown backend(s) ${unknown.join(', ')}; known: ${names.join(', ')}`);
  return asked.filter((name): name is BackendName => {
    if (name !== 'postgres' || (postgresBinDir !== undefined && natsServerPath !== undefined)) return true;
    console.error(
      '\n!!! POSTGRESQL + NATS NOT MEASURED: install postgresql and nats-server (apt-get install -y postgresql nats-server).\n',
    );
    return false;
  });
}

/**
 * Starts what a backend needs. PostgreSQL runs durable (fsync and synchronous_commit on, its defaults): the service
 * and the anchor each get a database of the one cluster, so they pay for the same commits.
 */
export async function startBackend(name: BackendName): Promise<BenchBackend> {
  if (name === 'sqlite')
    return { name: 'SQLite, embedded bus', env: {}, anchorEnv: (file) => ({ ANCHOR_DB: file }), stop: async () => undefined };
  const cluster = await startPostgresCluster({ durable: true });
  const nats = await startNatsServer().catch(async (error: unknown) => {
    await cluster.stop();
    throw error;
  });
  const [service, anchor] = [await cluster.createDatabase(), await cluster.createDatabase()];
  return {
    name: 'PostgreSQL + NATS',
    env: { NATURE_EVENT_STORE: 'postgres', NATURE_READ_MODELS: 'postgres', POSTGRES_URL: service, NATURE_BUS: 'nats', NATS_URL: nats.url },
    anchorEnv: () => ({ ANCHOR_POSTGRES_URL: anchor }),
    async stop() {
      await nats.stop();
      await cluster.stop();
    },
  };
}
