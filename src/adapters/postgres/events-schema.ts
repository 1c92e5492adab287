import type { PostgresStep } from './migrations.js';

/**
 * The steps of an environment's log (its schema's `events` store). Positions come from an identity column, and
 * every append takes the log's advisory lock before it (event-store.ts), so they are handed out, and committed,
 * in one order. `data` and `metadata` are `json`, kept as the text the service wrote (jsonb would reorder keys).
 */
export const EVENTS_STEPS: PostgresStep[] = [
  {
    version: 1,
    does: 'the log, append-only, its personal fields sealed per subject as data-v1 made them',
    async run(tx) {
      await tx.unsafe(`
        CREATE TABLE events (
          position        bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          event_id        text        NOT NULL UNIQUE,
          stream_name     text        NOT NULL,
          stream_revision bigint      NOT NULL,
          type            text        NOT NULL,
          data            json        NOT NULL,
          metadata        json        NOT NULL,
          recorded_at     timestamptz NOT NULL DEFAULT now(),
          UNIQUE (stream_name, stream_revision)
        );
        CREATE FUNCTION events_are_append_only() RETURNS trigger LANGUAGE plpgsql AS
          $$ BEGIN RAISE EXCEPTION 'events are append-only'; END $$;
        CREATE TRIGGER events_are_never_changed BEFORE UPDATE OR DELETE ON events
          FOR EACH ROW EXECUTE FUNCTION events_are_append_only();
        CREATE TRIGGER events_are_never_truncated BEFORE TRUNCATE ON events
          FOR EACH STATEMENT EXECUTE FUNCTION events_are_append_only();`);
    },
  },
];
