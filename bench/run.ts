/**
 * Every benchmark, one after another, each in its own process (a fresh heap, and the store benchmark's
 * patch of sqlite3 stays in its own): `npm run bench` at the root, or `npm run all` here. Arguments
 * (`--quick`, `--rounds N`) are passed to each. Exits non-zero if one fails, after running the others.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(new URL('.', import.meta.url));
if (!existsSync(`${here}node_modules/autocannon`)) {
  console.error('bench: its dependencies are not installed. Run `cd bench && npm ci` once (the root `npm ci` first).');
  process.exit(1);
}

const failed: string[] = [];
for (const name of ['store', 'http', 'lifecycle', 'rebuild', 'scale', 'careers', 'situational']) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', `${name}.ts`, ...process.argv.slice(2)], { cwd: here, stdio: 'inherit' });
  if (result.status !== 0) failed.push(name);
  console.log();
}
if (failed.length > 0) {
  console.error(`bench: failed: ${failed.join(', ')}`);
  process.exit(1);
}
