/**
 * Per-subject data keys, kept beside the log and never in it: destroying a subject's key makes every
 * personal field the log holds for it unreadable for good (crypto-shredding). One store per environment.
 */

/** The subject's key was destroyed: its personal data is gone and nothing new may be written for it. */
export class SubjectErasedError extends Error {
  override readonly name = 'SubjectErasedError';
  constructor(readonly subjectId: string) {
    super(`subject ${subjectId} is erased`);
  }
}

export interface DataKeyStore {
  /**
   * The subject's 256-bit key, made on first use. Throws SubjectErasedError once it was destroyed. With
   * `cached`, a key a cache read lately will do, though another process may have destroyed it since: only
   * for an append that an erasure makes conflict (see privacy/encrypting-event-store.ts).
   */
  keyFor(subjectId: string, options?: { cached?: boolean }): Promise<Buffer>;
  /** The subject's key; undefined if it was destroyed or never made. */
  find(subjectId: string): Promise<Buffer | undefined>;
  /** Destroys the key for good (idempotent); a later keyFor throws SubjectErasedError. */
  destroy(subjectId: string, at: string): Promise<void>;
  /** A random secret of the environment, made once: the key of keyed hashes such as external-id reservations. */
  environmentSecret(): Promise<Buffer>;
  /** Resolves when the store answers; for readiness checks. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/** What a wrapped-key store keeps besides subjects' keys: the environment's named secrets. */
export type BlobKind = 'subject' | 'secret';

/** One stored blob: a subject's key (named by the subject id) or a secret (by its name), as stored. */
export interface StoredBlob {
  kind: BlobKind;
  name: string;
  blob: Buffer;
}

/** A compare-and-set: `name`'s blob becomes `to` only if it still is `from`. */
export interface Rewrap {
  kind: BlobKind;
  name: string;
  from: Buffer;
  to: Buffer;
}

/**
 * Where the data keys are kept, as opaque blobs: each is a key wrapped by a master key held outside the store
 * (privacy/wrapped-data-keys.ts opens them), so a copy of the store reveals no key. The store records which
 * master key new blobs are wrapped by; creating a blob and changing that record are ordered, which is what a
 * rotation of the master key relies on.
 */
export interface WrappedKeyStore {
  /** What the operator calls this store in a message: a file, or a database. */
  readonly location: string;
  /**
   * The subject's blob. Made on first use by `fresh`, given the id of the master key the store records, read
   * in the same transaction as the blob is stored. Throws SubjectErasedError once the key was destroyed.
   */
  keyFor(subjectId: string, fresh: (masterKeyId: string) => Buffer): Promise<Buffer>;
  /** The subject's blob; undefined if it was destroyed or never made. */
  find(subjectId: string): Promise<Buffer | undefined>;
  /** Destroys the blob for good (idempotent); a later keyFor throws SubjectErasedError. */
  destroy(subjectId: string, at: string): Promise<void>;
  /** The secret's blob, made once by `fresh` as keyFor makes a subject's. */
  secret(name: string, fresh: (masterKeyId: string) => Buffer): Promise<Buffer>;
  /** The id of the master key that new blobs are wrapped by; undefined until one is recorded. */
  masterKeyId(): Promise<string | undefined>;
  /**
   * Records the master key that new blobs are wrapped by. Once this resolves, every blob made later is given
   * `id`, and no blob given the previous id is still to be stored: a pass over the store after it sees them all.
   */
  recordMasterKeyId(id: string): Promise<void>;
  /** Up to `limit` blobs of a kind, destroyed keys left out, in a stable order: those after the one named `after`. */
  list(kind: BlobKind, after: string | undefined, limit: number): Promise<StoredBlob[]>;
  /**
   * Applies each compare-and-set; how many applied. No copy of a replaced blob is left where the store can
   * help it (SQLite: in its write-ahead log).
   */
  rewrap(changes: Rewrap[]): Promise<number>;
  /** Rewrites the store's files, so that what blobs replaced (raw keys, after the upgrade) is nowhere in them. */
  compact(): Promise<void>;
  ping(): Promise<void>;
  close(): Promise<void>;
}
