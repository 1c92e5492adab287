import { jsonPointer } from './json-pointer.js';
import type { FieldError } from './problem.js';

type Path = readonly PropertyKey[];

/** A key written after a dot as it is; any other is quoted in brackets. */
const PLAIN_KEY = /^[\p{L}_][\p{L}\p{N}_-]*$/u;

/** A field as a person writes it: `external_subject_id`, `consent.ui_hash`, `responses[0].value`, `metadata["a/b"]`. */
export function fieldName(path: Path): string {
  return path
    .map((key, index) => {
      if (typeof key === 'number') return `[${key}]`;
      const name = String(key);
      if (index === 0) return name;
      return PLAIN_KEY.test(name) ? `.${name}` : `[${JSON.stringify(name)}]`;
    })
    .join('');
}

const wholeParts: Record<FieldError['in'], string> = {
  body: 'The request body',
  query: 'The query',
  path: 'The path',
  header: 'The headers',
};

/**
 * An error item whose message names its field: `predicate` says what is wrong with it ("is required.", "must be
 * at most 100."), after the field's name, or the whole part's for an empty path.
 */
export function fieldError(where: FieldError['in'], path: Path, predicate: string): FieldError {
  const subject = path.length === 0 ? wholeParts[where] : `\`${fieldName(path)}\``;
  return { path: jsonPointer(path), in: where, message: `${subject} ${predicate}` };
}
