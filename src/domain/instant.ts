/** Timestamps as the API takes them: real UTC instants in a sane range, at most nanosecond digits. */

/** UTC is `Z`, or an offset of zero: `+00:00`, and RFC 3339's `-00:00` (UTC, the local offset unknown). */
const TIMESTAMP = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:Z|[+-]00:00))?$/;

/** Earlier or later than this is a typo, not a time this service will meet. */
export const EARLIEST = new Date('2000-01-01T00:00:00.000Z');
export const LATEST = new Date('2100-01-01T00:00:00.000Z');

export const TIMESTAMP_FORMAT =
  'a UTC timestamp such as 2026-11-22T09:30:00Z (or +00:00; another offset is not UTC: convert it; fractions up to 9 digits), between 2000 and 2099';

/**
 * `YYYY-MM-DDTHH:MM:SS[.fraction]Z` (or `+00:00`, `-00:00`), or also `YYYY-MM-DD` (midnight UTC) when `dates` is set; undefined for
 * anything else, impossible dates (February 30th, hour 24, leap seconds) and years outside 2000..2099
 * included. Digits past the millisecond are dropped: instants are kept to the millisecond.
 */
export function parseInstant(value: string, { dates = false } = {}): Date | undefined {
  const match = TIMESTAMP.exec(value);
  if (!match || (match[4] === undefined && !dates)) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = match
    .slice(1, 7)
    .map((part) => (part === undefined ? undefined : Number(part)));
  const ms = Number((match[7] ?? '0').slice(0, 3).padEnd(3, '0'));
  const at = new Date(Date.UTC(year!, month! - 1, day!, hour, minute, second, ms));
  const exact =
    at.getUTCFullYear() === year &&
    at.getUTCMonth() === month! - 1 &&
    at.getUTCDate() === day &&
    at.getUTCHours() === hour &&
    at.getUTCMinutes() === minute &&
    at.getUTCSeconds() === second;
  return exact && at >= EARLIEST && at < LATEST ? at : undefined;
}
