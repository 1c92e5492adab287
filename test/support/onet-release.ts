import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ReleaseFiles } from '../../src/careers/release-tables.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * The O*NET release the careers tests read: NATURE_ONET_DIR, else the shared copy beside the checkout
 * (`../shared/data/onet-27.0`). It is reference data the operator imports, never committed here, so a machine may
 * lack it: the tests that need it then skip, saying so loudly. Named in NATURE_ONET_DIR and missing, it fails them.
 */
export const onetDir: string = resolve(root, process.env.NATURE_ONET_DIR ?? '../shared/data/onet-27.0');
export const onetMissing: boolean = !existsSync(join(onetDir, 'Occupation Data.txt'));

if (onetMissing) {
  const message =
    `\n!!! CAREERS TESTS ON THE O*NET RELEASE SKIPPED: no release at ${onetDir}. Set NATURE_ONET_DIR to a release's\n` +
    '!!! text folder (27.0 or later) and run them again. Skipped tests are reported as skipped, never as passed.\n';
  if (process.env.NATURE_ONET_DIR !== undefined) throw new Error(message);
  console.error(message);
}

/** The release's text files, read once per test file. */
export function onetFiles(): ReleaseFiles {
  return new Map(
    readdirSync(onetDir)
      .filter((name) => name.endsWith('.txt'))
      .map((name) => [name, readFileSync(join(onetDir, name), 'utf8')]),
  );
}
