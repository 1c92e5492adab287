import { Command } from 'commander';
import { MasterKeyFile } from '../privacy/master-key-file.js';
import { type RotatedStore, rotateMasterKey } from '../privacy/master-key-rotation.js';
import { CliError } from './errors.js';
import type { Output } from './keys.js';

/** Where the master key is, and the stores it wraps (both environments': one master key serves both). */
export interface MasterKeyAccess {
  keyFile(): string;
  openStores(): Promise<RotatedStore[]>;
}

export function masterKeyCommand(access: MasterKeyAccess, output: Output): Command {
  const masterKey = new Command('master-key').description('operate on the master key that wraps the data keys (NATURE_MASTER_KEY_FILE)');
  masterKey
    .command('rotate')
    .description(
      'replace the master key with a new one and re-wrap every data key of both environments with it; the key file ends holding the new key alone. ' +
        'Safe while servers run (they re-read the key file), and to run again after an interruption: it finishes the rotation it finds begun.',
    )
    .option('--json', 'print the summary as one JSON object')
    .action(async (options: { json?: boolean }) => {
      const path = access.keyFile();
      const file = MasterKeyFile.read(path);
      if (file === undefined)
        throw new CliError(`no master key file at ${path} (NATURE_MASTER_KEY_FILE): is --data-dir (or NATURE_MASTER_KEY_FILE) right?`);
      const stores = await access.openStores();
      try {
        const summary = await rotateMasterKey(file, stores);
        if (options.json) return output.out(JSON.stringify(summary));
        const counts = Object.entries(summary.rewrapped)
          .map(([name, count]) => `${count} in ${name}`)
          .join(', ');
        output.out(
          `${summary.resumed ? 'finished the interrupted rotation' : 'master key rotated'}: ${summary.from} → ${summary.to}; data keys re-wrapped: ${counts}; ${path} holds the new key alone`,
        );
      } finally {
        for (const { store } of stores) await store.close();
      }
    });
  return masterKey;
}
