/** A command refused by the domain's rules. The HTTP layer maps each code to a status. */
export type DomainErrorCode =
  | 'subject_exists'
  | 'subject_erased'
  | 'not_found'
  | 'assessment_in_progress'
  | 'assessment_not_open'
  | 'validation_failed';

export class DomainError extends Error {
  override readonly name = 'DomainError';
  constructor(
    readonly code: DomainErrorCode,
    message: string,
    /** Extra fields for the error body, e.g. the existing subject's id. */
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

/** What any request about an erased subject is told. */
export function subjectErasedError(subjectId: string, erasedAt: string): DomainError {
  return new DomainError('subject_erased', `The subject ${subjectId} was erased at ${erasedAt}; its personal data is gone for good.`, {
    subject_id: subjectId,
  });
}
