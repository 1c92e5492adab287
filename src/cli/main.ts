import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { Command, CommanderError, InvalidArgumentError } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { checkBackends } from '../backend-checks.js';
import { type Config, ConfigError, loadStoreConfig } from '../config.js';
import { checkDataDir } from '../data-dir.js';
import { type Environment, environments } from '../domain/api-keys.js';
import { openKeyStore, openOperatorStores, openReadModels, openWrappedKeys, sqliteStoreFile } from '../environments.js';
import { OperatorError, oneLine, storeProblem } from '../operator-errors.js';
import { auditCommand } from './audit.js';
import { CliError, exitStatus, UsageError } from './errors.js';
import { addCommandHelp } from './help.js';
import { keysCommand } from './keys.js';
import { masterKeyCommand } from './master-key.js';
import { profilesCommand } from './profiles.js';
import { usageCommand } from './usage.js';

const output = { out: (line: string) => process.stdout.write(`${line}\n`), err: (line: string) => process.stderr.write(`${line}\n`) };
// Known before parsing, so that an error in parsing is reported as JSON too.
const json = process.argv.includes('--json');

const program = new Command('nature')
  .description(
    'Operator commands of the Nature Profile API. They work on the same data directory and backends as the server, while it runs.',
  )
  .version(packageJson.version, '-V, --version', 'print the version')
  .option('--data-dir <dir>', 'where the stores are (default: NATURE_DATA_DIR, then ./data)', (value) => {
    if (value.trim() === '') throw new InvalidArgumentError('A directory is needed.');
    return value;
  });

let loaded: Config | undefined;
/** The stores' settings from the environment, with --data-dir first; nothing else is read. */
function storeConfig(): Config {
  const { dataDir } = program.opts<{ dataDir?: string }>();
  loaded ??= loadStoreConfig(dataDir === undefined ? process.env : { ...process.env, NATURE_DATA_DIR: dataDir });
  return loaded;
}

/**
 * The configuration, once the store that a command reads is known to exist: in a wrong directory it
 * fails, rather than create an empty store and report that it is empty.
 */
function existingStore(store: 'keys' | Environment): Config {
  const config = storeConfig();
  const file = sqliteStoreFile(config, store);
  // On EventStoreDB there is no file to look for: the server is asked instead (reachable).
  if (file === undefined) return config;
  const what = store === 'keys' ? 'key store' : `${store === 'live' ? 'production' : 'sandbox'} event log`;
  const missing = new CliError(`no ${what} in ${config.dataDir} (no ${basename(file)}): is --data-dir (or NATURE_DATA_DIR) right?`);
  if (!existsSync(config.dataDir)) throw missing;
  // A directory this user cannot read would hide the file: say that instead.
  checkDataDir(config.dataDir, { create: false });
  if (!existsSync(file)) throw missing;
  return config;
}

/**
 * The configuration, once the backend servers the command uses answered (within NATURE_BACKEND_TIMEOUT_MS
 * each): a wrong URL fails at once, in one line. The key commands use no event store.
 */
async function reachable(config: Config, uses = { eventStore: true }): Promise<Config> {
  await checkBackends(config, { bus: false, ...uses });
  return config;
}

program.addCommand(
  keysCommand(
    {
      async open({ create }) {
        const config = storeConfig();
        if (config.readModels.kind === 'mongodb') return openKeyStore(await reachable(config, { eventStore: false }));
        if (!create) return openKeyStore(existingStore('keys'));
        // Minting is how a new install starts, so it may create the store: it says so.
        const fresh = !existsSync(sqliteStoreFile(config, 'keys'));
        checkDataDir(config.dataDir, { create: true });
        if (fresh) output.err(`nature: no key store in ${config.dataDir} yet: starting a new one`);
        return openKeyStore(config);
      },
      async openLeftBehind() {
        const config = storeConfig();
        if (config.readModels.kind !== 'mongodb')
          throw new CliError('the keys are kept in keys.db itself (NATURE_READ_MODELS is not mongodb): there is nothing to import');
        return { store: await openKeyStore(existingStore('keys'), 'keys.db'), file: sqliteStoreFile(config, 'keys') };
      },
    },
    output,
  ),
);
program.addCommand(
  profilesCommand(async (environment) => openOperatorStores(await reachable(existingStore(environment)), environment), output),
);
program.addCommand(
  auditCommand(async (environment) => openOperatorStores(await reachable(existingStore(environment)), environment), output),
);
program.addCommand(usageCommand(async (environment) => openReadModels(await reachable(existingStore(environment)), environment), output));
program.addCommand(
  masterKeyCommand(
    {
      keyFile: () => storeConfig().masterKeyFile,
      async openStores() {
        for (const environment of environments) existingStore(environment);
        const config = await reachable(storeConfig(), { eventStore: false });
        const opened = [];
        try {
          for (const environment of environments) opened.push({ name: environment, store: await openWrappedKeys(config, environment) });
        } catch (error) {
          for (const { store } of opened) await store.close();
          throw error;
        }
        return opened;
      },
    },
    output,
  ),
);

addCommandHelp(program);

// Commander reports through us (one line, or JSON) and never exits by itself.
const everyCommand = (command: Command): Command[] => [command, ...command.commands.flatMap(everyCommand)];
for (const command of everyCommand(program)) command.exitOverride().configureOutput({ outputError: () => {} });

/** The exit status and the one line that report a failure. */
function failure(error: unknown): { status: number; message: string } {
  if (error instanceof CommanderError) return { status: exitStatus.usage, message: error.message.replace(/^error: /, '') };
  if (error instanceof UsageError) return { status: exitStatus.usage, message: error.message };
  if (error instanceof CliError || error instanceof ConfigError || error instanceof OperatorError)
    return { status: exitStatus.failed, message: error.message };
  const problem = loaded === undefined ? undefined : storeProblem(error, loaded.dataDir);
  return { status: exitStatus.failed, message: problem ?? (error instanceof Error ? error.message : String(error)) };
}

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // --help and --version end here too, having printed what they print.
  if (error instanceof CommanderError && error.exitCode === exitStatus.ok) process.exit(exitStatus.ok);
  const { status, message } = failure(error);
  const code = status === exitStatus.usage ? 'usage_error' : 'command_failed';
  // Help printed for a missing subcommand ('commander.help') is its own message.
  if (!(error instanceof CommanderError && error.code === 'commander.help')) {
    output.err(json ? JSON.stringify({ error: { code, message } }) : `nature: ${oneLine(message)}`);
  }
  process.exit(status);
}
