import { existsSync, readFileSync, statSync } from 'node:fs';
import { basename, join } from 'node:path';
import { unzipSync } from 'fflate';
import { RELEASE_FILES } from '../careers/build-catalogue.js';
import type { ReleaseFiles } from '../careers/release-tables.js';
import { CliError } from './errors.js';

const wanted = new Set(RELEASE_FILES);

/**
 * The release's files an import reads, from its text folder or its zip (O*NET's `db_27_0_text.zip` holds them in a
 * folder `db_27_0_text/`): only those, so the rest of a full release is never decompressed. A file the release
 * lacks is simply absent here; the reader that needs it names it.
 */
export function readRelease(path: string): ReleaseFiles {
  if (!existsSync(path)) throw new CliError(`no such folder or zip: ${path}`);
  return statSync(path).isDirectory() ? readFolder(path) : readZip(path);
}

function readFolder(folder: string): ReleaseFiles {
  const files = new Map<string, string>();
  for (const name of RELEASE_FILES) {
    const file = join(folder, name);
    if (existsSync(file)) files.set(name, readFileSync(file, 'utf8'));
  }
  return files;
}

function readZip(path: string): ReleaseFiles {
  let entries: Record<string, Uint8Array>;
  try {
    // The files at the zip's top or in one folder of it; anything deeper is not the release's.
    entries = unzipSync(readFileSync(path), { filter: ({ name }) => wanted.has(basename(name)) && name.split('/').length <= 2 });
  } catch (error) {
    throw new CliError(`${path} is neither a folder nor a zip that can be read: ${(error as Error).message}`);
  }
  const decoder = new TextDecoder('utf-8');
  return new Map(Object.entries(entries).map(([name, bytes]) => [basename(name), decoder.decode(bytes)]));
}
