import { monotonicFactory } from 'ulid';

/** Type prefixes of the contract's ids. */
export type IdPrefix = 'sub' | 'asm' | 'prf' | 'whe' | 'whd' | 'evt' | 'key' | 'req';

const ulid = monotonicFactory();

/** `prefix_` + a ULID: time-sortable, so ids order lists newest first without another column. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}
