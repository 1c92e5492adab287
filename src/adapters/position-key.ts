/**
 * A log position as a sortable string: 40 zero-padded digits compare as text in the order of the numbers
 * (any 128-bit bigint fits), for stores that index strings (SQLite TEXT, MongoDB strings).
 */
export function positionKey(position: bigint): string {
  if (position < 0n) throw new Error('positions are never negative');
  return position.toString().padStart(40, '0');
}
