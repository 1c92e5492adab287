import { randomBytes } from 'node:crypto';
import type { BlobKind, DataKeyStore, Rewrap, StoredBlob, WrappedKeyStore } from '../ports/data-keys.js';
import {
  dataKeyLabel,
  isRawKey,
  KEY_LENGTH,
  type MasterKey,
  MasterKeyError,
  type MasterKeyRing,
  secretLabel,
  UnknownMasterKeyError,
  wrapKey,
  wrappedBy,
} from './master-key.js';
import type { MasterKeyFile, WrappedKeyHeld } from './master-key-file.js';

const PAGE = 500;
/** The environment's one secret: the key of keyed hashes such as external-id reservations. */
const ENVIRONMENT_SECRET = 'environment';

export const labelOf = (kind: BlobKind, name: string) => (kind === 'subject' ? dataKeyLabel(name) : secretLabel(name));

/** Every blob of the store, subjects' keys then secrets, a page at a time. */
export async function* storedBlobs(store: WrappedKeyStore): AsyncGenerator<StoredBlob[]> {
  for (const kind of ['subject', 'secret'] as const) {
    let after: string | undefined;
    for (;;) {
      const page = await store.list(kind, after, PAGE);
      if (page.length === 0) break;
      yield page;
      after = page.at(-1)!.name;
    }
  }
}

/** The first key the store holds wrapped by a master key, if any: what makes a new master key unsafe to make. */
export async function firstWrapped(store: WrappedKeyStore): Promise<WrappedKeyHeld | undefined> {
  for await (const page of storedBlobs(store)) {
    const wrapped = page.find(({ blob }) => !isRawKey(blob));
    if (wrapped !== undefined) return { location: store.location, keyId: wrappedBy(wrapped.blob)! };
  }
  return undefined;
}

/**
 * The data keys of one environment, kept wrapped by the master key (NATURE_MASTER_KEY_FILE) in a store that
 * holds opaque blobs only. A key id this process does not know (a rotation under way) makes it read the key
 * file again, once, before it gives up.
 */
export class WrappedDataKeys implements DataKeyStore {
  private constructor(
    private readonly store: WrappedKeyStore,
    private readonly masterKeys: MasterKeyFile,
  ) {}

  /**
   * The store, once it is known to be wrapped by the file's keys: a store from before wrapping (raw keys) is
   * wrapped in place first, which a crash may interrupt and the next start finishes. A store wrapped by a
   * key the file does not hold stops the start, in one line, with nothing changed.
   */
  static async open(store: WrappedKeyStore, masterKeys: MasterKeyFile): Promise<WrappedDataKeys> {
    const ring = masterKeys.ring;
    const recorded = await store.masterKeyId();
    if (recorded === undefined || !ring.has(recorded)) {
      await refuseForeignKeys(store, masterKeys);
      // Nothing recorded yet (a new store, or one from before wrapping), or a key no blob is wrapped by. The
      // compaction runs even when nothing was left to wrap: a start that wrapped the rest may have died before it.
      await wrapRawKeys(store, ring.current);
      await store.compact();
      await store.recordMasterKeyId(ring.current.id);
    }
    return new WrappedDataKeys(store, masterKeys);
  }

  async keyFor(subjectId: string): Promise<Buffer> {
    const label = dataKeyLabel(subjectId);
    return this.withKnownKeys(async () => this.ring.unwrap(await this.store.keyFor(subjectId, (id) => this.fresh(id, label)), label));
  }

  async find(subjectId: string): Promise<Buffer | undefined> {
    const label = dataKeyLabel(subjectId);
    return this.withKnownKeys(async () => {
      const blob = await this.store.find(subjectId);
      return blob && this.ring.unwrap(blob, label);
    });
  }

  destroy(subjectId: string, at: string): Promise<void> {
    return this.store.destroy(subjectId, at);
  }

  async environmentSecret(): Promise<Buffer> {
    const label = secretLabel(ENVIRONMENT_SECRET);
    return this.withKnownKeys(async () =>
      this.ring.unwrap(await this.store.secret(ENVIRONMENT_SECRET, (id) => this.fresh(id, label)), label),
    );
  }

  ping(): Promise<void> {
    return this.store.ping();
  }

  close(): Promise<void> {
    return this.store.close();
  }

  private get ring(): MasterKeyRing {
    return this.masterKeys.ring;
  }

  /** A new key wrapped by the master key the store records (UnknownMasterKeyError if this process lacks it). */
  private fresh(masterKeyId: string, label: string): Buffer {
    return wrapKey(this.ring.get(masterKeyId), randomBytes(KEY_LENGTH), label);
  }

  /** `work`, run again once the key file was read again if it met a master key this process did not know. */
  private async withKnownKeys<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      if (!(error instanceof UnknownMasterKeyError)) throw error;
      // Another call may have read the file since; else only a file replaced since it was read is read again.
      if (!this.ring.has(error.keyId)) this.masterKeys.refresh();
      if (!this.ring.has(error.keyId)) throw this.unknown(error.keyId);
      return work();
    }
  }

  private unknown(keyId: string): MasterKeyError {
    return new MasterKeyError(
      `${this.store.location} holds keys wrapped by master key ${keyId}, which NATURE_MASTER_KEY_FILE ${this.masterKeys.path} does not hold`,
    );
  }
}

/** Stops the start if the store holds a key wrapped by a master key the file does not hold: that file is the wrong one. */
async function refuseForeignKeys(store: WrappedKeyStore, masterKeys: MasterKeyFile): Promise<void> {
  const ring = masterKeys.ring;
  for await (const page of storedBlobs(store)) {
    const foreign = page.map(({ blob }) => wrappedBy(blob)).find((id) => id !== undefined && !ring.has(id));
    if (foreign === undefined) continue;
    const held = ring.keys.map((key) => key.id).join(' and ');
    throw new MasterKeyError(
      `NATURE_MASTER_KEY_FILE ${masterKeys.path} holds master key ${held}, but the data keys in ${store.location} are wrapped by master key ${foreign}: ` +
        'give the file that holds that key',
    );
  }
}

/** Wraps every raw key (stored before wrapping) in place, each by compare-and-set. */
async function wrapRawKeys(store: WrappedKeyStore, master: MasterKey): Promise<void> {
  for await (const page of storedBlobs(store)) {
    const changes: Rewrap[] = page
      .filter(({ blob }) => isRawKey(blob))
      .map(({ kind, name, blob }) => ({ kind, name, from: blob, to: wrapKey(master, blob, labelOf(kind, name)) }));
    if (changes.length > 0) await store.rewrap(changes);
  }
}

/** The key `blob` wraps, raw keys included (read only to wrap them); WrappedKeyError if it does not open. */
export function openAnyBlob(ring: MasterKeyRing, { kind, name, blob }: StoredBlob): Buffer {
  return isRawKey(blob) ? blob : ring.unwrap(blob, labelOf(kind, name));
}
