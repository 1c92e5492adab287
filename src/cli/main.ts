import { Command } from 'commander';
import { ConfigError, loadConfig } from '../config.js';
import { openEventStore, openKeyStore, openOperatorStores } from '../environments.js';
import { auditCommand } from './audit.js';
import { CliError, keysCommand } from './keys.js';
import { profilesCommand } from './profiles.js';
import { usageCommand } from './usage.js';

const output = { out: (line: string) => process.stdout.write(`${line}\n`), err: (line: string) => process.stderr.write(`${line}\n`) };

const program = new Command('nature')
  .description('Operator commands of the Nature Profile API. They work on the same NATURE_DATA_DIR as the server, while it runs.')
  .showHelpAfterError();
program.addCommand(keysCommand(() => openKeyStore(loadConfig()), output));
program.addCommand(profilesCommand((environment) => openOperatorStores(loadConfig(), environment), output));
program.addCommand(auditCommand((environment) => openOperatorStores(loadConfig(), environment), output));
program.addCommand(usageCommand((environment) => openEventStore(loadConfig(), environment), output));

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CliError || error instanceof ConfigError) {
    output.err(`nature: ${error.message}`);
    process.exit(1);
  }
  throw error;
}
