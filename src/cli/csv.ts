/**
 * One CSV record (RFC 4180): a field with a comma, a quote or a line break is quoted, its quotes doubled. Text that a
 * spreadsheet would run as a formula (=, +, -, @, a tab or a carriage return first: a key's name is anyone's words)
 * gets a leading apostrophe, as OWASP advises for CSV meant for spreadsheets. Numbers are written as they are.
 */
export function csvRecord(fields: readonly (string | number | null)[]): string {
  return fields
    .map((field) => {
      if (field === null) return '';
      if (typeof field === 'number') return String(field);
      const text = /^[=+\-@\t\r]/.test(field) ? `'${field}` : field;
      return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
    })
    .join(',');
}
