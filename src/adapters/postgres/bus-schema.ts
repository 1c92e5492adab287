import type { PostgresStep } from './migrations.js';

/**
 * The steps of an environment's bus (its schema's `bus` store). One row per message and topic, kept through its
 * life: `ready` (waiting, or claimed by a consumer until `claimed_until`, by the server's clock, the one clock every
 * replica shares), `done` (kept for the duplicate window, then deleted) or `dead` (kept for the operator).
 * `claim` names the claim a consumer holds, so one whose claim lapsed cannot settle the message another now holds.
 * `payload` is `json`: the server refuses a payload that is not JSON, so a consumer never meets one.
 */
export const BUS_STEPS: PostgresStep[] = [
  {
    version: 1,
    does: 'the bus between the log and the webhook dispatcher',
    async run(tx) {
      await tx.unsafe(`
        CREATE TABLE bus_messages (
          topic          text        NOT NULL,
          id             text        NOT NULL,
          payload        json        NOT NULL,
          state          text        NOT NULL DEFAULT 'ready' CHECK (state IN ('ready', 'done', 'dead')),
          delivery_count integer     NOT NULL DEFAULT 0,
          published_at   timestamptz NOT NULL DEFAULT now(),
          available_at   timestamptz NOT NULL DEFAULT now(),
          claimed_until  timestamptz,
          claim          text,
          settled_at     timestamptz,
          dead_reason    text,
          PRIMARY KEY (topic, id)
        );
        CREATE INDEX bus_messages_due ON bus_messages (topic, available_at) WHERE state = 'ready';
        CREATE INDEX bus_messages_claimed ON bus_messages (topic, claimed_until) WHERE state = 'ready' AND claimed_until IS NOT NULL;
        CREATE INDEX bus_messages_settled ON bus_messages (topic, settled_at) WHERE state <> 'ready';`);
    },
  },
];
