import { statSync, watch } from 'node:fs';
import { join } from 'node:path';
import { spawnFromSource } from './processes.js';

/**
 * Runs `nature ARGS` in its own process and kills it with SIGKILL as soon as it writes to keys.db's log (opening it
 * only creates it, empty): between a change and its activity entry, were they written apart. Answers how the
 * process ended ('SIGKILL', or its status when it finished first on a busy machine, before its write was seen).
 */
export async function killedAsItWrites(dataDir: string, args: string[]): Promise<number | string> {
  const wal = join(dataDir, 'keys.db-wal');
  const walState = () => {
    const stat = statSync(wal, { throwIfNoEntry: false });
    return stat === undefined ? '0:' : `${stat.size}:${stat.mtimeMs}`;
  };
  const before = walState();
  const { process: child, exited } = spawnFromSource(['src/cli/main.ts', ...args], { NATURE_DATA_DIR: dataDir });
  const watcher = watch(dataDir, () => {
    const now = walState();
    if (now !== before && !now.startsWith('0:')) child.kill('SIGKILL');
  });
  try {
    return await exited;
  } finally {
    watcher.close();
  }
}
