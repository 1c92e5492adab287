import { DataTooOldError } from '../data-versions.js';
import { INVITATIONS } from './invitations-table.js';
import { columnsOf, type SqliteStep } from './migrations.js';
import { TWO_FACTOR_TABLES } from './two-factor-store.js';

/** The API keys, as data-v1 made them (origins included). */
const API_KEYS = `
CREATE TABLE IF NOT EXISTS api_keys (
  id             TEXT PRIMARY KEY,
  name           TEXT NOT NULL,
  environment    TEXT NOT NULL CHECK (environment IN ('test', 'live')),
  type           TEXT NOT NULL CHECK (type IN ('pk', 'sk')),
  scopes         TEXT NOT NULL,
  hash           TEXT NOT NULL UNIQUE,
  last4          TEXT NOT NULL,
  created_at     TEXT NOT NULL,
  revoked_at     TEXT,
  revoked_reason TEXT,
  rotated_from   TEXT,
  origins        TEXT NOT NULL DEFAULT '[]'
);
`;

/**
 * The account's users, sessions, application and activity log, beside the API keys: the key store writes a key's
 * change and the activity entry that records it in one transaction, so a crash never leaves one without the other.
 */
const ACCOUNTS = `
CREATE TABLE IF NOT EXISTS users (
  id               TEXT PRIMARY KEY,
  account_id       TEXT NOT NULL,
  role             TEXT NOT NULL,
  email_sealed     TEXT NOT NULL,
  email_index      TEXT NOT NULL UNIQUE,
  password_hash    TEXT,
  setup_token_hash TEXT UNIQUE,
  setup_expires_at TEXT,
  created_at       TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS sessions (
  id_hash      TEXT PRIMARY KEY,
  user_id      TEXT NOT NULL,
  created_at   TEXT NOT NULL,
  last_seen_at TEXT NOT NULL,
  expires_at   TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_by_user ON sessions (user_id);
CREATE TABLE IF NOT EXISTS sign_in_failures (
  key TEXT NOT NULL,
  at  TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS sign_in_failures_by_key ON sign_in_failures (key, at);
CREATE TABLE IF NOT EXISTS applications (
  account_id TEXT PRIMARY KEY,
  body       TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS activity (
  id         TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  body       TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS activity_by_account ON activity (account_id, id);
`;

/** keys.db's steps (its user_version): the key store and the account store, each on a connection of its own, run them. */
export const KEYS_FILE_STEPS: SqliteStep[] = [
  {
    version: 1,
    does: 'API keys as data-v1 made them',
    run(db) {
      const columns = columnsOf(db, 'api_keys');
      if (columns.length > 0 && !columns.includes('origins')) throw new DataTooOldError(db.name, 'API keys without allowed origins');
      db.exec(API_KEYS);
    },
  },
  { version: 2, does: 'accounts: users, sessions, sign-in failures, applications, activity', run: (db) => db.exec(ACCOUNTS) },
  { version: 3, does: "API keys' last use, to the hour", run: (db) => db.exec('ALTER TABLE api_keys ADD COLUMN last_used_at TEXT') },
  { version: 4, does: 'invitations to join the account', run: (db) => db.exec(INVITATIONS) },
  {
    version: 5,
    does: "the account's plan",
    run: (db) => db.exec('CREATE TABLE IF NOT EXISTS plans (account_id TEXT PRIMARY KEY, body TEXT NOT NULL)'),
  },
  { version: 6, does: 'two-factor sign-in: enrolments, the requirement, pending sign-ins', run: (db) => db.exec(TWO_FACTOR_TABLES) },
];
