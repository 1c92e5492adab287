import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Every file under `dir` (WAL and SHM files included) in which one of `needles` occurs, byte for byte. */
export function filesContaining(dir: string, needles: (string | Buffer)[]): { file: string; needle: string }[] {
  const found: { file: string; needle: string }[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      found.push(...filesContaining(path, needles));
      continue;
    }
    const bytes = readFileSync(path);
    for (const needle of needles) {
      if (bytes.includes(typeof needle === 'string' ? Buffer.from(needle, 'utf8') : needle)) {
        found.push({ file: name, needle: typeof needle === 'string' ? needle : `<${needle.length} key bytes>` });
      }
    }
  }
  return found;
}
