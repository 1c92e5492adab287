import { DataTooOldError } from '../data-versions.js';
import type { SqliteStep } from './migrations.js';

/** Triggers that refuse to change or remove an event. */
const APPEND_ONLY = `
CREATE TRIGGER IF NOT EXISTS events_are_never_updated BEFORE UPDATE ON events
  BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER IF NOT EXISTS events_are_never_deleted BEFORE DELETE ON events
  BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
`;

/** The log's table (the benchmark's raw baseline creates the same one). */
export const EVENTS_TABLE = `
CREATE TABLE IF NOT EXISTS events (
  position        INTEGER PRIMARY KEY AUTOINCREMENT,
  event_id        TEXT    NOT NULL UNIQUE,
  stream_name     TEXT    NOT NULL,
  stream_revision INTEGER NOT NULL,
  type            TEXT    NOT NULL,
  data            TEXT    NOT NULL,
  metadata        TEXT    NOT NULL,
  recorded_at     TEXT    NOT NULL,
  UNIQUE (stream_name, stream_revision)
)`;

/** The bus's queue (bus.ts), in the log's file so that a publication commits into the same WAL. */
const BUS_MESSAGES = `
CREATE TABLE IF NOT EXISTS bus_messages (
  topic          TEXT    NOT NULL,
  id             TEXT    NOT NULL,
  payload        TEXT    NOT NULL,
  state          TEXT    NOT NULL DEFAULT 'ready' CHECK (state IN ('ready', 'done', 'dead')),
  available_at   INTEGER NOT NULL,
  delivery_count INTEGER NOT NULL DEFAULT 0,
  leased_until   INTEGER,
  dead_reason    TEXT,
  PRIMARY KEY (topic, id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS bus_messages_due ON bus_messages (topic, state, available_at);
`;

/**
 * The steps of an environment's events.db (its user_version), run by the event store and the bus alike. data-v1
 * left it at 1 (then the log's format: personal fields sealed per subject); a log at 0 that holds events was
 * written before that, in plain text.
 */
export const EVENTS_FILE_STEPS: SqliteStep[] = [
  {
    version: 1,
    does: 'the log, sealed per subject, and the bus queue, as data-v1 made them',
    run(db) {
      const hasLog = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'events'").get() !== undefined;
      if (hasLog && db.prepare('SELECT 1 FROM events LIMIT 1').get() !== undefined)
        throw new DataTooOldError(db.name, 'a log whose personal fields are not sealed per subject');
      db.exec(`${EVENTS_TABLE};${APPEND_ONLY}${BUS_MESSAGES}`);
    },
  },
];
