import { type ApiKeyRecord, hashKey } from '../domain/api-keys.js';
import type { KeyStore } from '../ports/key-store.js';

/** Raw keys remembered at most: every key of a deployment fits; a flood of distinct valid keys only refills it. */
const CAPACITY = 10_000;

/**
 * The API keys requests sent, by raw key, so that a request with a key seen before is admitted without hashing it
 * or asking the store: synchronously, in the request gate. Only keys the store found are kept (anyone can send
 * unknown ones), revoked ones included, so that they are refused as cheaply.
 *
 * Checked on every lookup against the store's version (KeyStore.version), and emptied when it moves: at once
 * for a revocation or rotation made by this process (the dashboard, the API), and within the event-loop turn for
 * one made by another (`nature keys`, another replica), the SQLite store reading its file's data_version once per
 * turn. So only requests already being admitted in the turn of another process's commit (milliseconds of them)
 * can still pass with a key it revoked, as they would had they arrived a moment earlier; docs/operations.md says
 * the same. A store without a version (MongoDB) keeps nothing here: every request asks it, as before.
 */
export class KeyCache {
  private readonly found = new Map<string, ApiKeyRecord>();
  private version: number | undefined;

  constructor(private readonly keys: KeyStore) {}

  /** The key's record when it was found before and nothing changed since; undefined: ask `find`. */
  cached(raw: string): ApiKeyRecord | undefined {
    const version = this.keys.version?.();
    if (version === undefined) return undefined;
    this.validate(version);
    return this.found.get(raw);
  }

  /** Asks the store, and keeps what it found unless the keys changed meanwhile. */
  async find(raw: string): Promise<ApiKeyRecord | undefined> {
    const before = this.keys.version?.();
    const record = await this.keys.findByHash(hashKey(raw));
    if (record === undefined || before === undefined || this.keys.version?.() !== before) return record;
    this.validate(before);
    if (this.found.size >= CAPACITY) this.found.clear();
    this.found.set(raw, record);
    return record;
  }

  private validate(version: number): void {
    if (version === this.version) return;
    this.found.clear();
    this.version = version;
  }
}
