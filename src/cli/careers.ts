import { Command } from 'commander';
import { buildCatalogue, releaseOf } from '../careers/build-catalogue.js';
import { type Catalogue, catalogueVersion } from '../careers/catalogue.js';
import { ReleaseError } from '../careers/release-tables.js';
import type { CatalogueStore, InstalledCatalogue } from '../ports/careers-catalogue.js';
import { CliError } from './errors.js';
import type { Output } from './keys.js';
import { readRelease } from './release-files.js';

export interface CatalogueAccess {
  /** The store an import installs into, made when there is none yet. */
  open(): Promise<CatalogueStore>;
  /** The store as it is, undefined where none was ever made (no careers.db): `status` never makes one. */
  openExisting(): Promise<CatalogueStore | undefined>;
  /** How often servers look for a new catalogue (NATURE_CAREERS_CHECK_MS). */
  checkEveryMs(): number;
}

/** How many occupations lack a profile for each reason, most first. */
function unprofiledByReason(catalogue: Catalogue): [string, number][] {
  const counts = new Map<string, number>();
  for (const { reason } of catalogue.unprofiled) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

/** Titles count once per occupation (each is a career); `distinct_titles` counts each once, whichever occupations share it. */
const counts = (catalogue: Catalogue) => ({
  occupations: catalogue.occupations.length,
  titles: catalogue.careers.length,
  distinct_titles: new Set(catalogue.careers.map((career) => career.title.toLowerCase())).size,
  unprofiled: catalogue.unprofiled.length,
});

function printCounts(output: Output, catalogue: Catalogue): void {
  const { occupations, titles, distinct_titles, unprofiled } = counts(catalogue);
  output.out(`  occupations: ${occupations}`);
  output.out(`  titles: ${titles} careers (${distinct_titles} distinct titles, some shared by several occupations)`);
  output.out(`  occupations without enough data to profile: ${unprofiled}`);
  for (const [reason, count] of unprofiledByReason(catalogue)) output.out(`    ${count}: ${reason}`);
}

/** Reads, checks and builds the release at `path`, saying each step on `progress` as it starts. */
function built(path: string, progress: (line: string) => void): Catalogue {
  const started = performance.now();
  const step = (what: string) => progress(`nature careers import: ${what} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  step(`reading ${path}`);
  try {
    const files = readRelease(path);
    const release = releaseOf(files);
    step(`building the catalogue of O*NET ${release}`);
    return buildCatalogue(files, release);
  } catch (error) {
    // One line naming the file, and the column, that the release lacks.
    if (error instanceof ReleaseError) throw new CliError(`${path}: ${error.message}`);
    throw error;
  }
}

async function importRelease(access: CatalogueAccess, output: Output, path: string, json: boolean): Promise<void> {
  const catalogue = built(path, output.err);
  output.err(`nature careers import: installing ${catalogueVersion(catalogue)}`);
  const store = await access.open();
  let result: { changed: boolean; installed: InstalledCatalogue };
  try {
    result = await store.install(catalogue);
  } finally {
    await store.close();
  }
  const { changed, installed } = result;
  if (json) {
    const unprofiled = Object.fromEntries(unprofiledByReason(catalogue));
    return output.out(JSON.stringify({ ...installed, changed, ...counts(catalogue), unprofiled_by_reason: unprofiled }));
  }
  output.out(
    changed
      ? `careers catalogue ${installed.version} installed as ${installed.id}; running servers pick it up within ${access.checkEveryMs() / 1000} s`
      : `nothing changed: careers catalogue ${installed.version} is installed already, the same (${installed.id}, since ${installed.installedAt})`,
  );
  printCounts(output, catalogue);
}

async function printStatus(access: CatalogueAccess, output: Output, json: boolean): Promise<void> {
  const store = await access.openExisting();
  try {
    const installed = await store?.current();
    if (installed === undefined) {
      if (json) return output.out(JSON.stringify({ installed: null }));
      return output.out('no careers catalogue installed: import one with "nature careers import PATH"');
    }
    const catalogue = await store!.load(installed.id);
    if (json) return output.out(JSON.stringify({ installed: { ...installed, ...counts(catalogue) } }));
    output.out(`careers catalogue ${installed.version}, ${installed.id}, installed ${installed.installedAt}`);
    printCounts(output, catalogue);
  } finally {
    await store?.close();
  }
}

/** `nature careers`: the operator's import of an O*NET release, beside running servers. */
export function careersCommand(access: CatalogueAccess, output: Output): Command {
  const careers = new Command('careers').description(
    'the careers catalogue: the O*NET occupations and titles the Careers API answers from',
  );
  careers
    .command('import')
    .description(
      'import an O*NET release (27.0 or later): its text folder or its zip (db_27_0_text.zip) from onetcenter.org. Swapped in whole while servers run, which pick it up within NATURE_CAREERS_CHECK_MS; the same release again changes nothing. Progress goes to stderr, the counts to stdout.',
    )
    .argument('<path>', "the release's text folder or zip")
    .option('--json', 'print the result as one JSON object')
    .action((path: string, options: { json?: boolean }) => importRelease(access, output, path, options.json === true));
  careers
    .command('status')
    .description('print the installed catalogue: its version, id, when it was installed, and its counts')
    .option('--json', 'print it as one JSON object')
    .action((options: { json?: boolean }) => printStatus(access, output, options.json === true));
  return careers;
}
