import type { SealedPart } from '../ports/collections.js';
import type { DataKeyStore } from '../ports/data-keys.js';
import { openPart } from '../privacy/sealed-part.js';
import { ProblemError } from './problem.js';

/**
 * Opens what a read model keeps sealed for a subject, to answer a request (never more than the records of
 * the page answered). A subject whose key is gone was erased since its document was read: 410, as after.
 */
export async function openSealed<T>(dataKeys: DataKeyStore, subjectId: string, parts: readonly SealedPart[]): Promise<T[]> {
  const key = await dataKeys.find(subjectId);
  if (key === undefined) throw subjectGone(subjectId);
  return parts.map((part) => openPart<T>(key, subjectId, part));
}

/** The 410 for a subject erased after its subject document was read: its key, or its documents' personal fields, are gone. */
export function subjectGone(subjectId: string): ProblemError {
  return new ProblemError('subject_erased', `The subject ${subjectId} was erased; its personal data is gone for good.`, {
    subject_id: subjectId,
  });
}
