/** A date and time as people type them, always UTC: `2026-11-29`, `2026-11-29 10:30`, `2026-11-29T10:30:15Z`. */
const WRITTEN = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?)Z?)?$/;
/** A time back from now: `90s`, `15m`, `2h`, `7d`. */
const AGO = /^(\d{1,6})(s|m|h|d)$/;
const UNIT_MS = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** The instant `text` names, in ms since the epoch, or undefined when it names none. */
export function parseUtcInstant(text: string, now: Date): number | undefined {
  const trimmed = text.trim();
  const ago = AGO.exec(trimmed);
  if (ago !== null) return now.getTime() - Number(ago[1]) * UNIT_MS[ago[2] as keyof typeof UNIT_MS];
  const written = WRITTEN.exec(trimmed);
  if (written === null) return undefined;
  const at = Date.parse(`${written[1]}T${written[2] ?? '00:00'}Z`);
  // Date.parse rolls 2026-02-31 over to March: a date that does not exist names nothing.
  return Number.isNaN(at) || new Date(at).toISOString().slice(0, 10) !== written[1] ? undefined : at;
}
