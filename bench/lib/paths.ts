import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The checkout: the server, the CLI and the stores under test live here. */
export const root = fileURLToPath(new URL('../..', import.meta.url));

/** A fresh directory under the system's temp directory, removed by `cleanup`. */
export function scratchDir(prefix: string): { path: string; cleanup(): void } {
  const path = mkdtempSync(join(tmpdir(), prefix));
  return { path, cleanup: () => rmSync(path, { recursive: true, force: true }) };
}
