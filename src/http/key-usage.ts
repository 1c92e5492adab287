import type { FastifyBaseLogger } from 'fastify';
import { type ApiKeyRecord, usedHour } from '../domain/api-keys.js';
import type { KeyStore } from '../ports/key-store.js';

/** How long the hours seen wait before they are written, together. */
const FLUSH_MS = 5_000;
/** Keys remembered at most (every key of a deployment fits); past it the memory starts again, costing a write each. */
const CAPACITY = 10_000;
const HOUR_MS = 3_600_000;

/**
 * Each key's last use, to the hour, kept without a write per request: a request only notes its key's hour in memory,
 * and the hours new since the last write are written together a few seconds later (and when the server closes). So a
 * key costs at most one write an hour per process, and a request never waits on one. A write that fails is tried
 * again with the next.
 */
export class KeyUsage {
  /** The latest hour written or waiting, by key id. */
  private readonly known = new Map<string, string>();
  private pending = new Map<string, string>();
  private timer: NodeJS.Timeout | undefined;
  private hour = '';
  private hourEnds = 0;

  constructor(
    private readonly keys: KeyStore,
    private readonly logger: FastifyBaseLogger,
  ) {}

  /** Notes that `key` was used at `now`. Synchronous and cheap: the hour's name is made once an hour. */
  seen(key: ApiKeyRecord, now: Date): void {
    const at = now.getTime();
    if (at >= this.hourEnds || at < this.hourEnds - HOUR_MS) {
      this.hour = usedHour(now);
      this.hourEnds = Date.parse(this.hour) + HOUR_MS;
    }
    const known = this.known.get(key.id) ?? key.last_used_at;
    if (known !== null && known >= this.hour) return;
    if (this.known.size >= CAPACITY) this.known.clear();
    this.known.set(key.id, this.hour);
    this.pending.set(key.id, this.hour);
    this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
  }

  /** Writes the hours noted since the last write. */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.pending.size === 0) return;
    const hours = this.pending;
    this.pending = new Map();
    try {
      await this.keys.markUsed(hours);
    } catch (error) {
      this.logger.warn({ err: error, keys: hours.size }, "keys' last use not written; tried again with the next");
      for (const [id, hour] of hours) if ((this.pending.get(id) ?? '') < hour) this.pending.set(id, hour);
      this.timer ??= setTimeout(() => void this.flush(), FLUSH_MS).unref();
    }
  }
}
