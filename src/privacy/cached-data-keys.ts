import type { DataKeyStore } from '../ports/data-keys.js';

const TTL_MS = 10_000;
const MAX_ENTRIES = 10_000;

/**
 * Keys read through a short-lived cache, so replaying a subject's events looks its key up once. A key this
 * process destroys is dropped at once; one destroyed by another process stays readable here for at most
 * TTL_MS, and serves the writes that ask for a `cached` key as long (an erasure makes those conflict); any
 * other write fails at once, asking the store. The lifetime is measured on the monotonic clock, so a wall
 * clock set back cannot stretch it.
 */
export class CachedDataKeys implements DataKeyStore {
  private readonly cache = new Map<string, { key: Buffer | undefined; until: number }>();
  /** Made once and never changed, so asked for once. */
  private secret: Promise<Buffer> | undefined;
  /** Told of each key destroyed here, to drop what was opened with it. */
  private readonly destroyed: ((subjectId: string) => void)[] = [];

  constructor(private readonly store: DataKeyStore) {}

  /** The store behind the cache, for reads that must see a key another process destroyed at once. */
  get uncached(): DataKeyStore {
    return this.store;
  }

  async keyFor(subjectId: string, options?: { cached?: boolean }): Promise<Buffer> {
    if (options?.cached) {
      const cached = this.cache.get(subjectId);
      if (cached?.key !== undefined && cached.until > performance.now()) return cached.key;
    }
    const key = await this.store.keyFor(subjectId);
    this.remember(subjectId, key);
    return key;
  }

  async find(subjectId: string): Promise<Buffer | undefined> {
    const cached = this.cache.get(subjectId);
    if (cached !== undefined && cached.until > performance.now()) return cached.key;
    const key = await this.store.find(subjectId);
    this.remember(subjectId, key);
    return key;
  }

  private remember(subjectId: string, key: Buffer | undefined): void {
    if (this.cache.size >= MAX_ENTRIES) this.cache.clear();
    this.cache.set(subjectId, { key, until: performance.now() + TTL_MS });
  }

  async destroy(subjectId: string, at: string): Promise<void> {
    await this.store.destroy(subjectId, at);
    this.cache.delete(subjectId);
    for (const listener of this.destroyed) listener(subjectId);
  }

  /** Calls `listener` with each subject whose key is destroyed through this cache, once it is gone from the store. */
  onDestroy(listener: (subjectId: string) => void): void {
    this.destroyed.push(listener);
  }

  environmentSecret(): Promise<Buffer> {
    this.secret ??= this.store.environmentSecret().catch((error: unknown) => {
      this.secret = undefined;
      throw error;
    });
    return this.secret;
  }

  ping(): Promise<void> {
    return this.store.ping();
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
