import type { PostgresStep } from './migrations.js';

/**
 * The steps of an environment's read models (its schema's `read-models` store), numbered as on SQLite and MongoDB
 * so that a later data step has one number on every backend. Positions are `numeric`: EventStoreDB's outgrow a
 * bigint. Ids and periods compare as bytes (`COLLATE "C"`), as lists and counter spans need whatever the database's
 * locale. Documents are `json`, kept as the text the projection wrote: `jsonb` would reorder the keys of the
 * metadata that callers chose and read back. `doc` is null for a removed document: its tombstone keeps the position.
 */
export const READ_MODEL_STEPS: PostgresStep[] = [
  {
    version: 1,
    does: 'documents, checkpoints and leases as data-v1 made them',
    async run(tx) {
      await tx.unsafe(`
        CREATE TABLE documents (
          collection text COLLATE "C" NOT NULL,
          id         text COLLATE "C" NOT NULL,
          doc        json,
          position   numeric(40, 0) NOT NULL,
          PRIMARY KEY (collection, id)
        );
        CREATE TABLE projection_checkpoints (
          projection text PRIMARY KEY,
          position   numeric(40, 0) NOT NULL
        );
        -- Leadership among the replicas: expires_at by the server's clock, the one clock every replica shares.
        CREATE TABLE leases (
          name       text PRIMARY KEY,
          holder     text NOT NULL,
          token      bigint NOT NULL,
          expires_at timestamptz NOT NULL
        );`);
    },
  },
  {
    version: 2,
    does: 'usage counters',
    async run(tx) {
      await tx.unsafe(`
        CREATE TABLE counters (
          collection text NOT NULL,
          counter    text NOT NULL,
          period     text COLLATE "C" NOT NULL,
          key        text NOT NULL,
          n          bigint NOT NULL,
          position   numeric(40, 0) NOT NULL,
          PRIMARY KEY (collection, counter, period, key)
        );`);
    },
  },
  // No PostgreSQL read models were written before personal fields were sealed or usage was counted: nothing to rebuild.
  { version: 3, does: 'read models rebuilt with their personal fields sealed', run: async () => {} },
  { version: 4, does: 'usage rebuilt as counters, not bucket documents', run: async () => {} },
];
