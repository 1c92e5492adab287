/**
 * Idempotency keys: the first answer to a POST or PATCH sent with an `Idempotency-Key`, kept for 24 h per
 * key and environment so a retry gets that answer again instead of running twice. One store per environment.
 */

/** How long a key is remembered from its first use, in the key store and as the tag of the events it produced. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** What a claim finds. */
export type Claim =
  /**
   * The caller runs the request and then completes or releases the key as `holder`: once its lease ran out and
   * a retry claimed the key, the store ignores what the first claimant does with it.
   */
  | { outcome: 'claimed'; holder: string }
  /** An earlier request with the same fingerprint finished: its stored answer (`unscoped`: stored under `unscopedKey`). */
  | { outcome: 'replay'; response: string; unscoped?: true }
  /** An earlier request with the same fingerprint is still running (its lease has not run out). */
  | { outcome: 'in_use' }
  /** The key was used for a different request. */
  | { outcome: 'reused' };

export interface ClaimRequest {
  /** The caller's key in its scope (the API key that sent it): another scope's same key is another key. */
  key: string;
  /**
   * The key as stored before keys were scoped, which names no API key: what it still holds (kept 24 h from
   * before the upgrade) is honoured as it was, replay, reuse or hold, before `key` is claimed. Never written.
   */
  unscopedKey?: string;
  /** A digest of method, path and body. */
  fingerprint: string;
  now: Date;
  /**
   * How long a running request holds the key; after that (a crash) a retry may run it again, and finds the events
   * the first run wrote by the key's tag. A store that can tell the holder's process died lets a retry in at once.
   */
  leaseMs: number;
  /** How long the key is remembered from its first use. */
  ttlMs: number;
}

export interface IdempotencyStore {
  /** Atomically claims the key, or tells what holds it. A key past its time to live counts as new. */
  claim(request: ClaimRequest): Promise<Claim>;
  /** Stores the answer of a key `holder` claimed (opaque to the store) for replays; nothing if another holder has it since. */
  complete(key: string, holder: string, response: string): Promise<void>;
  /** Frees a key `holder` claimed without an answer, so a retry runs the request again; nothing if another holder has it since. */
  release(key: string, holder: string): Promise<void>;
  /** Resolves when the store answers; for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
