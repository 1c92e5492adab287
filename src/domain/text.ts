/**
 * Why a one-line text someone typed (a key's name, an organisation, a rejection's reason) is refused, or undefined:
 * 1..max characters once trimmed, printable only. Control and invisible format characters (newlines, bidi
 * overrides) would forge or hide lines where it is listed (the operator's terminal, the dashboard's tables).
 */
export function lineProblem(noun: string, text: string, max: number): string | undefined {
  const trimmed = text.trim();
  const length = [...trimmed].length;
  if (length === 0 || length > max) return `${noun} has 1 to ${max.toLocaleString('en')} characters.`;
  if (/[\p{Cc}\p{Cf}]/u.test(trimmed)) return `${noun} has printable characters only, on one line.`;
  return undefined;
}
