import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** The two environments' file prefixes in NATURE_DATA_DIR (see src/wiring/environments.ts). */
export const storePrefixes = ['sandbox', 'production'] as const;
export type StorePrefix = (typeof storePrefixes)[number];

/**
 * The tables a digest covers, per file of an environment, each with the order that makes its dump
 * stable: the log and the webhook queue beside it, the read models with their checkpoints, and the
 * data keys. keys.db is left out on purpose (it serves both environments and is not written by API
 * requests), as is any table not listed here; `otherTables` names those, so a reader sees what a
 * digest does not cover.
 */
export const digestedTables: Record<string, { table: string; orderBy: string }[]> = {
  'events.db': [
    { table: 'events', orderBy: 'position' },
    { table: 'bus_messages', orderBy: 'topic, id' },
  ],
  'read.db': [
    { table: 'documents', orderBy: 'collection, id' },
    { table: 'projection_checkpoints', orderBy: 'projection' },
  ],
  'data-keys.db': [
    { table: 'data_keys', orderBy: 'subject_id' },
    { table: 'secrets', orderBy: 'name' },
    { table: 'master_key', orderBy: 'one' },
  ],
};

export interface LogRow {
  position: number;
  event_id: string;
  stream_name: string;
  type: string;
  data: Record<string, any>;
  metadata: { request_id?: string; key_id?: string; causation?: string };
}

export interface StoreDigest {
  /** One hash over every digested table of both environments. */
  hash: string;
  /** Per `prefix.file:table`: its row count and hash, to say which table changed. */
  tables: Record<string, { rows: number; hash: string }>;
}

const jsonSafe = (_key: string, value: unknown) =>
  typeof value === 'bigint' ? value.toString() : Buffer.isBuffer(value) ? value.toString('hex') : value;

/**
 * Reads a server's SQLite stores while it runs: read-only connections in WAL mode, so each query sees
 * the last committed state and never takes the write lock from the server.
 */
export class StoreReader {
  private readonly connections = new Map<string, Database.Database>();
  /** Each digested file's `PRAGMA data_version` when the last digest read it. */
  private readonly versions = new Map<string, number>();

  constructor(private readonly dataDir: string) {}

  private db(prefix: StorePrefix, file: string): Database.Database | undefined {
    const path = join(this.dataDir, `${prefix}.${file}`);
    let db = this.connections.get(path);
    if (db === undefined) {
      if (!existsSync(path)) return undefined;
      db = new Database(path, { readonly: true, fileMustExist: true });
      db.pragma('busy_timeout = 5000');
      this.connections.set(path, db);
    }
    return db;
  }

  private hasTable(db: Database.Database, table: string): boolean {
    return db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(table) !== undefined;
  }

  /** A digest of every digested table of both environments, read in one transaction per file. */
  digest(): StoreDigest {
    const tables: StoreDigest['tables'] = {};
    const all = createHash('sha256');
    for (const prefix of storePrefixes) {
      for (const [file, specs] of Object.entries(digestedTables)) {
        const db = this.db(prefix, file);
        if (db === undefined) continue;
        db.transaction(() => {
          this.versions.set(`${prefix}.${file}`, db.pragma('data_version', { simple: true }) as number);
          for (const { table, orderBy } of specs) {
            if (!this.hasTable(db, table)) continue;
            const hash = createHash('sha256');
            let rows = 0;
            for (const row of db.prepare(`SELECT * FROM ${table} ORDER BY ${orderBy}`).raw().safeIntegers().iterate()) {
              hash.update(JSON.stringify(row, jsonSafe));
              hash.update('\n');
              rows += 1;
            }
            const digest = hash.digest('hex');
            tables[`${prefix}.${file}:${table}`] = { rows, hash: digest };
            all.update(`${prefix}.${file}:${table}:${rows}:${digest}\n`);
          }
        })();
      }
    }
    return { hash: all.digest('hex'), tables };
  }

  /**
   * Whether another connection (the server) committed to a digested file since the last digest: a cheap
   * test (SQLite's data_version) before hashing everything again. A commit may leave the digest as it was.
   */
  changedSinceDigest(): boolean {
    for (const prefix of storePrefixes) {
      for (const file of Object.keys(digestedTables)) {
        const db = this.db(prefix, file);
        if (db === undefined) continue;
        if (db.pragma('data_version', { simple: true }) !== this.versions.get(`${prefix}.${file}`)) return true;
      }
    }
    return false;
  }

  /**
   * Tables of the environments' SQLite files that no digest covers, with their row counts: tables added
   * to a digested file, and whole files of their own (such as `sandbox.idempotency.db`).
   */
  otherTables(): Record<string, number> {
    const found: Record<string, number> = {};
    for (const prefix of storePrefixes) {
      const files = readdirSync(this.dataDir).filter((name) => name.startsWith(`${prefix}.`) && name.endsWith('.db'));
      for (const fileName of files) {
        const file = fileName.slice(prefix.length + 1);
        const db = this.db(prefix, file);
        if (db === undefined) continue;
        const specs = digestedTables[file] ?? [];
        const names = db
          .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
          .all();
        for (const { name } of names) {
          if (specs.some((spec) => spec.table === name)) continue;
          const row = db.prepare(`SELECT count(*) AS n FROM "${name.replaceAll('"', '""')}"`).get() as { n: number };
          found[`${prefix}.${file}:${name}`] = row.n;
        }
      }
    }
    return found;
  }

  /** The environment's log as stored (personal fields sealed), oldest first. */
  log(prefix: StorePrefix): LogRow[] {
    const db = this.db(prefix, 'events.db');
    if (db === undefined) return [];
    return db
      .prepare<[], { position: number; event_id: string; stream_name: string; type: string; data: string; metadata: string }>(
        'SELECT position, event_id, stream_name, type, data, metadata FROM events ORDER BY position',
      )
      .all()
      .map((row) => ({ ...row, data: JSON.parse(row.data), metadata: JSON.parse(row.metadata) }));
  }

  /** The documents of one read-model collection, by id. */
  documents(prefix: StorePrefix, collection: string): Map<string, Record<string, any>> {
    const db = this.db(prefix, 'read.db');
    const docs = new Map<string, Record<string, any>>();
    if (db === undefined) return docs;
    for (const row of db
      .prepare<[string], { id: string; doc: string }>('SELECT id, doc FROM documents WHERE collection = ? AND doc IS NOT NULL')
      .iterate(collection)) {
      docs.set(row.id, JSON.parse(row.doc));
    }
    return docs;
  }

  /** Webhook queue messages by state (ready, done, dead) per topic. */
  busStates(prefix: StorePrefix): Record<string, number> {
    const db = this.db(prefix, 'events.db');
    if (db === undefined || !this.hasTable(db, 'bus_messages')) return {};
    const rows = db
      .prepare<[], { topic: string; state: string; n: number }>(
        'SELECT topic, state, count(*) AS n FROM bus_messages GROUP BY topic, state',
      )
      .all();
    return Object.fromEntries(rows.map((row) => [`${row.topic}:${row.state}`, row.n]));
  }

  close(): void {
    for (const db of this.connections.values()) db.close();
    this.connections.clear();
  }
}

/** Which tables differ between two digests, with their row counts before → after. */
export function digestDiff(before: StoreDigest, after: StoreDigest): string[] {
  const names = new Set([...Object.keys(before.tables), ...Object.keys(after.tables)]);
  return [...names]
    .filter((name) => before.tables[name]?.hash !== after.tables[name]?.hash)
    .map((name) => `${name} (${before.tables[name]?.rows ?? 0} → ${after.tables[name]?.rows ?? 0} rows)`);
}
