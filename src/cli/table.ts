/** Columns padded to their widest cell, two spaces apart; the last column (free text, such as a name) is not padded. */
export function table(header: string[] | undefined, rows: string[][]): string[] {
  const all = header ? [header, ...rows] : rows;
  const widths = all[0]?.map((_, column) => Math.max(...all.map((row) => [...(row[column] ?? '')].length))) ?? [];
  return all.map((row) =>
    row.map((cell, column) => (column === row.length - 1 ? cell : cell + ' '.repeat(widths[column]! - [...cell].length))).join('  '),
  );
}
