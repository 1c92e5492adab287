/** Edits from one name to another: a character inserted, deleted, replaced, or two neighbours swapped. */
function editDistance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const replace = rows[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, replace);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The known name an unknown one most likely misspells: at most two edits away, case aside (one edit for a name
 * of three characters or fewer, where two would match almost anything); the nearest, the first of equals.
 */
export function didYouMean(name: string, known: readonly string[]): string | undefined {
  const limit = name.length <= 3 ? 1 : 2;
  let best: { name: string; edits: number } | undefined;
  for (const candidate of known) {
    if (Math.abs(candidate.length - name.length) > limit) continue;
    const edits = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (edits <= limit && (best === undefined || edits < best.edits)) best = { name: candidate, edits };
  }
  return best?.name;
}
