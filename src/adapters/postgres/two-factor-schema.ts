import type { PostgresStep } from './migrations.js';

/** Step 3 of the keys schema: two-factor sign-in's tables. The secret is sealed (as `email_sealed`), codes and tokens are hashes. */
export const TWO_FACTOR_STEP: PostgresStep = {
  version: 5,
  does: 'two-factor sign-in: enrolments, the requirement, pending sign-ins',
  async run(tx) {
    await tx.unsafe(`
      CREATE TABLE two_factor (
        user_id              text COLLATE "C" PRIMARY KEY,
        secret_sealed        json    NOT NULL,
        created_at           text    NOT NULL,
        enabled_at           text,
        last_step            integer,
        recovery_code_hashes text[]  NOT NULL
      );
      CREATE TABLE two_factor_requirements (account_id text PRIMARY KEY, required boolean NOT NULL);
      CREATE TABLE pending_sign_ins (
        id_hash    text PRIMARY KEY,
        user_id    text NOT NULL,
        created_at text NOT NULL,
        expires_at text COLLATE "C" NOT NULL
      );`);
  },
};
