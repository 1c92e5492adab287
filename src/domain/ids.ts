import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/** Type prefixes of the contract's ids. */
export type IdPrefix = 'sub' | 'asm' | 'prf' | 'whe' | 'whd' | 'evt' | 'key' | 'req' | 'usr' | 'act' | 'cat' | 'sit' | 'lnk' | 'inv';

/**
 * Cryptographic random bytes drawn a page at a time: ulid asks for one byte per character, and one
 * call into the CSPRNG per byte was a visible share of every request.
 */
const pool = new Uint8Array(4096);
let next = pool.length;
function randomFraction(): number {
  if (next === pool.length) {
    randomFillSync(pool);
    next = 0;
  }
  return pool[next++]! / 256;
}

const ulid = monotonicFactory(randomFraction);

/** What an id of `prefix` is, as newId makes it: the prefix, `_` and a ULID (26 characters of Crockford's base 32). */
export function idPattern(prefix: string): RegExp {
  return new RegExp(`^${prefix}_[0-9A-HJKMNP-TV-Z]{26}$`);
}

/** `prefix_` + a ULID: time-sortable, so ids order lists newest first without another column. */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid()}`;
}
