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
  /** The subject's 256-bit key, made on first use. Throws SubjectErasedError once it was destroyed. */
  keyFor(subjectId: string): Promise<Buffer>;
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
