/**
 * An O*NET release's text files as read from its folder or zip: file name (`Occupation Data.txt`) to its text.
 * Only the files an import needs are read (REQUIRED by each reader's own list).
 */
export type ReleaseFiles = ReadonlyMap<string, string>;

/** A release that cannot be imported: its message is one line naming the file, and the column where one is missing. */
export class ReleaseError extends Error {
  override readonly name = 'ReleaseError';
}

/**
 * The rows of one tab-delimited file of the release (UTF-8, a header row, a record a line), each keyed by the
 * `columns` asked for: the release may add columns, never drop these.
 */
export function readTable<C extends string>(files: ReleaseFiles, file: string, columns: readonly C[]): Record<C, string>[] {
  const text = files.get(file);
  if (text === undefined) throw new ReleaseError(`the release has no "${file}"`);
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  const header = lines[0]!.split('\t');
  const at = columns.map((column) => {
    const index = header.indexOf(column);
    if (index < 0) throw new ReleaseError(`"${file}" has no column "${column}"`);
    return index;
  });
  const rows: Record<C, string>[] = [];
  for (let line = 1; line < lines.length; line++) {
    if (lines[line] === '') continue;
    const cells = lines[line]!.split('\t');
    rows.push(Object.fromEntries(columns.map((column, i) => [column, cells[at[i]!] ?? ''])) as Record<C, string>);
  }
  return rows;
}
