/** RFC 6901: a JSON Pointer from path segments, `~` and `/` escaped so every key names itself. */
export function jsonPointer(segments: readonly PropertyKey[]): string {
  return segments.map((segment) => `/${String(segment).replaceAll('~', '~0').replaceAll('/', '~1')}`).join('');
}
