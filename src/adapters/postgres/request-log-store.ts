import { isRoute, type RequestFilter, type RequestLogStore, type RequestPage, type RequestRecord } from '../../ports/request-log.js';
import type { PostgresOptions, PostgresPool, Sql } from './client.js';
import { migratedPool, type PostgresStep } from './migrations.js';

/** The steps of an environment's request log (its schema's `request-log` store); times in ms since the epoch. */
export const REQUEST_LOG_STEPS: PostgresStep[] = [
  {
    version: 1,
    does: 'the request log',
    async run(tx) {
      await tx.unsafe(`
        CREATE TABLE request_log (
          id              text COLLATE "C" PRIMARY KEY,
          at              bigint NOT NULL,
          method          text NOT NULL,
          route           text,
          path            text COLLATE "C" NOT NULL,
          status          integer NOT NULL,
          duration_ms     double precision NOT NULL,
          key_id          text,
          key_hint        text,
          idempotency_key text,
          request_body    text,
          problem         text
        );
        CREATE INDEX request_log_at ON request_log (at);
        CREATE INDEX request_log_by_key ON request_log (key_id, id);`);
    },
  },
];

const PRUNE_BATCH = 5000;

interface Row extends Omit<RequestRecord, 'at'> {
  at: bigint;
}

const recordOf = ({ at, ...rest }: Row): RequestRecord => ({ ...rest, at: Number(at) });

/** The filter as one SQL fragment (postgres.js composes and binds each part). */
function conditions(sql: Sql, filter: RequestFilter, before: string | undefined) {
  const parts = [sql`TRUE`];
  if (filter.statusClass !== undefined)
    parts.push(sql`status >= ${filter.statusClass * 100} AND status < ${filter.statusClass * 100 + 100}`);
  if (filter.path !== undefined)
    parts.push(isRoute(filter.path) ? sql`route = ${filter.path}` : sql`left(path, ${filter.path.length}) = ${filter.path}`);
  if (filter.keyId !== undefined) parts.push(sql`key_id = ${filter.keyId}`);
  if (filter.since !== undefined) parts.push(sql`at >= ${filter.since}`);
  if (filter.until !== undefined) parts.push(sql`at < ${filter.until}`);
  if (before !== undefined) parts.push(sql`id < ${before}`);
  return parts.reduce((all, part) => sql`${all} AND ${part}`);
}

/** The environment's request log in its PostgreSQL schema (`request_log`), beside its read models. */
export class PostgresRequestLogStore implements RequestLogStore {
  private constructor(private readonly pool: PostgresPool) {}

  static async connect(url: string, schema: string, options?: PostgresOptions): Promise<PostgresRequestLogStore> {
    return new PostgresRequestLogStore(await migratedPool(url, schema, 'request-log', REQUEST_LOG_STEPS, options));
  }

  async append(records: readonly RequestRecord[]): Promise<void> {
    if (records.length === 0) return;
    const { sql } = this.pool;
    await this.pool.answered(sql`INSERT INTO request_log ${sql(records as RequestRecord[])} ON CONFLICT (id) DO NOTHING`);
  }

  async list(filter: RequestFilter, { limit, before }: { limit: number; before?: string }): Promise<RequestPage> {
    const { sql } = this.pool;
    const rows = await this.pool.answered(sql<Row[]>`
      SELECT * FROM request_log WHERE ${conditions(sql, filter, before)} ORDER BY id DESC LIMIT ${limit + 1}`);
    return { data: rows.slice(0, limit).map(recordOf), hasMore: rows.length > limit };
  }

  async get(id: string): Promise<RequestRecord | undefined> {
    const [row] = await this.pool.answered(this.pool.sql<Row[]>`SELECT * FROM request_log WHERE id = ${id}`);
    return row && recordOf(row);
  }

  async prune(cutoff: number): Promise<number> {
    let removed = 0;
    for (;;) {
      const deleted = await this.pool.answered(this.pool.sql`
        DELETE FROM request_log WHERE id IN (SELECT id FROM request_log WHERE at < ${cutoff} LIMIT ${PRUNE_BATCH} FOR UPDATE SKIP LOCKED)`);
      removed += deleted.count;
      if (deleted.count < PRUNE_BATCH) return removed;
    }
  }

  close(): Promise<void> {
    return this.pool.release();
  }
}
