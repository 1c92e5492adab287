import { OperatorError } from '../support/operator-errors.js';

/**
 * The oldest data a start upgrades: what the service wrote at commit d0662b8 (test/fixtures/data-v1: the log sealed
 * per subject, read models in plain text, data keys raw). Each store's step 1 is its schema as that version made
 * it; a store written by anything older is refused, not guessed at.
 */
export const OLDEST_SUPPORTED = 'data-v1 (commit d0662b8)';

/** A store written before OLDEST_SUPPORTED: no step of this version reads it. */
export class DataTooOldError extends OperatorError {
  constructor(store: string, what: string) {
    super(
      `${store} was written by a version older than ${OLDEST_SUPPORTED} (${what}): start a version of that time on it once, then this one`,
    );
  }
}

/** A store a newer version upgraded: this version does not know its last steps. */
export class DataTooNewError extends OperatorError {
  constructor(store: string, version: number, latest: number) {
    super(`${store} is at data version ${version}, written by a newer version of the service (this one knows up to ${latest})`);
  }
}

/** One numbered change to a store, from 1 (the store as OLDEST_SUPPORTED made it); `does` names it in errors and docs. */
export interface MigrationStep<Run> {
  version: number;
  does: string;
  run: Run;
}

/** A step's failure, named (an OperatorError, already one line for the operator, passes as it is). */
export function stepFailed(store: string, step: MigrationStep<unknown>, error: unknown): Error {
  if (error instanceof OperatorError) return error;
  return new Error(`${store}: step ${step.version} (${step.does}) failed: ${(error as Error).message}`, { cause: error });
}

/** Steps numbered 1, 2, 3 … in order: a gap or a repeat is a mistake of the list, caught at its first use. */
export function checkNumbering(store: string, steps: readonly { version: number }[]): void {
  steps.forEach((step, i) => {
    if (step.version !== i + 1) throw new Error(`${store}: step ${i + 1} is numbered ${step.version}`);
  });
}

/** A store opened as it is (an operator command's) that a start of this version has not upgraded yet. */
export class StoreBehindError extends Error {
  override readonly name = 'StoreBehindError';
  constructor(store: string, version: number, latest: number) {
    super(`${store} is at data version ${version}, not ${latest}: a start of this version upgrades it`);
  }
}

/**
 * Marks the read models carried before they had numbered steps (as checkpoints): a store holding them has had
 * the rebuild the mark names, so its step does not rebuild it again, and removes the mark.
 */
export const FORMAT_MARKS = { sealed: 'format:sealed-personal-data', usage: 'format:usage-counters' } as const;
