import type { ActivityRecord } from '../../domain/accounts.js';
import type { Sql, TransactionSql } from './client.js';
import type { PostgresStep } from './migrations.js';
import { TWO_FACTOR_STEP } from './two-factor-schema.js';

/** The schema of what both environments share, the API keys and the account: as MongoDB's `nature_keys` database. */
export const KEYS_SCHEMA = 'nature_keys';

/** The store name both the key store and the account store bring to its last step: one set of tables, as keys.db. */
export const KEYS_STORE = 'keys';

/**
 * The steps of the keys schema. Only hashes of raw keys, session ids and set-up tokens are kept; a user's address
 * is sealed (`email_sealed`, kept as the JSON the service wrote). Times are ISO 8601 text, compared byte-wise
 * (COLLATE "C"), as in keys.db; so are the ids that lists are sorted by.
 */
export const KEYS_STEPS: PostgresStep[] = [
  {
    version: 1,
    does: 'API keys, users, sessions, sign-in failures, the application and the activity log, as data-v1 made them',
    async run(tx) {
      await tx.unsafe(`
        CREATE TABLE api_keys (
          id             text COLLATE "C" PRIMARY KEY,
          name           text   NOT NULL,
          environment    text   NOT NULL CHECK (environment IN ('test', 'live')),
          type           text   NOT NULL CHECK (type IN ('pk', 'sk')),
          scopes         text[] NOT NULL,
          hash           text   NOT NULL UNIQUE,
          last4          text   NOT NULL,
          created_at     text   NOT NULL,
          revoked_at     text,
          revoked_reason text,
          rotated_from   text,
          origins        text[] NOT NULL DEFAULT '{}'
        );
        CREATE TABLE users (
          id               text COLLATE "C" PRIMARY KEY,
          account_id       text NOT NULL,
          role             text NOT NULL,
          email_sealed     json NOT NULL,
          email_index      text NOT NULL UNIQUE,
          password_hash    text,
          setup_token_hash text UNIQUE,
          setup_expires_at text,
          created_at       text NOT NULL
        );
        CREATE TABLE sessions (
          id_hash      text PRIMARY KEY,
          user_id      text NOT NULL,
          created_at   text NOT NULL,
          last_seen_at text COLLATE "C" NOT NULL,
          expires_at   text COLLATE "C" NOT NULL
        );
        CREATE INDEX sessions_by_user ON sessions (user_id);
        CREATE TABLE sign_in_failures (key text NOT NULL, at text COLLATE "C" NOT NULL);
        CREATE INDEX sign_in_failures_by_key ON sign_in_failures (key, at);
        CREATE TABLE applications (account_id text PRIMARY KEY, body json NOT NULL);
        CREATE TABLE activity (id text COLLATE "C" PRIMARY KEY, account_id text NOT NULL, body json NOT NULL);
        CREATE INDEX activity_by_account ON activity (account_id, id);`);
    },
  },
  {
    version: 2,
    does: "API keys' last use, to the hour",
    async run(tx) {
      await tx.unsafe('ALTER TABLE api_keys ADD COLUMN last_used_at text COLLATE "C"');
    },
  },
  {
    version: 3,
    does: 'invitations to join the account',
    async run(tx) {
      await tx.unsafe(`
        CREATE TABLE invitations (
          id           text COLLATE "C" PRIMARY KEY,
          account_id   text NOT NULL,
          role         text NOT NULL,
          email_sealed json NOT NULL,
          email_index  text NOT NULL UNIQUE,
          token_hash   text NOT NULL UNIQUE,
          expires_at   text COLLATE "C" NOT NULL,
          invited_by   text NOT NULL,
          created_at   text NOT NULL
        );
        CREATE INDEX invitations_by_account ON invitations (account_id, id);`);
    },
  },
  {
    version: 4,
    does: "the account's plan",
    async run(tx) {
      await tx.unsafe('CREATE TABLE plans (account_id text PRIMARY KEY, body json NOT NULL)');
    },
  },
  TWO_FACTOR_STEP,
];

/** Appends `entry` (when there is one) in the transaction of the change it records. */
export async function recordActivity(tx: Sql | TransactionSql, entry: ActivityRecord | undefined): Promise<void> {
  if (entry === undefined) return;
  await tx`INSERT INTO activity (id, account_id, body) VALUES (${entry.id}, ${entry.account_id}, ${JSON.stringify(entry)}::text::json)`;
}
