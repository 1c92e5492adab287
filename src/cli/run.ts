import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, type OutputConfiguration } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { currentPlan } from '../commands/account-plans.js';
import { KeyRuleError } from '../commands/api-keys.js';
import { type Environment, environments } from '../domain/api-keys.js';
import { DEFAULT_PLAN_CHOICE } from '../domain/plans.js';
import { escapeUnprintable } from '../domain/text.js';
import { type Config, ConfigError, loadConfig, loadMailConfig, loadStoreConfig } from '../settings/config.js';
import { checkDataDir } from '../support/data-dir.js';
import { OperatorError, oneLine, storeProblem } from '../support/operator-errors.js';
import { checkBackends } from '../wiring/backend-checks.js';
import { backendsOf } from '../wiring/backends.js';
import {
  openAccountStore,
  openCatalogueStore,
  openDataKeys,
  openKeyStore,
  openOperatorReadModels,
  openOperatorStores,
  openRequestLog,
  openWrappedKeys,
  sqliteStoreFile,
} from '../wiring/environments.js';
import { openMailer } from '../wiring/mailer.js';
import { accountCommand } from './account-plan.js';
import { type AccountStores, applicationsCommand, usersCommand } from './accounts.js';
import { auditCommand } from './audit.js';
import { type CatalogueAccess, careersCommand } from './careers.js';
import { CliError, exitStatus, UsageError } from './errors.js';
import { addCommandHelp } from './help.js';
import { type KeyStores, keysCommand, type Output } from './keys.js';
import { listenCommand } from './listen.js';
import { logsCommand } from './logs.js';
import { type MasterKeyAccess, masterKeyCommand } from './master-key.js';
import { mcpCommand } from './mcp.js';
import { profilesCommand } from './profiles.js';
import { situationalCommand } from './situational.js';
import { triggerCommand } from './trigger.js';
import { disableTwoFactorCommand } from './two-factor.js';
import { usageCommand } from './usage.js';
import type { UsageStores } from './usage-stores.js';

/** A stream `nature` prints to; on a terminal (isTTY, columns) help is wrapped to its width and progress drawn in place. */
export type Terminal = NodeJS.WritableStream & { isTTY?: boolean; columns?: number };

/** What `nature` prints to and reads its settings from: the process's own, or a test's. */
export interface CliIo {
  stdout: Terminal;
  stderr: Terminal;
  env: NodeJS.ProcessEnv;
  /** What `--password-stdin` reads; none: such a command fails in one line. */
  stdin?: NodeJS.ReadableStream & { isTTY?: boolean };
}

/** More than any password (PASSWORD_MAX characters of up to 4 bytes): a file piped in by mistake is not read to its end. */
const STDIN_MAX_BYTES = 8 * 1024;

/** All of standard input, as text: piped in, not typed (a typed password would be shown on the terminal and kept in its scroll-back). */
async function readStdin(stdin: CliIo['stdin']): Promise<string> {
  if (stdin === undefined) throw new CliError('no standard input to read the password from');
  if (stdin.isTTY === true)
    throw new UsageError(
      '--password-stdin reads a password piped in, never typed: printf \'%s\' "$PASSWORD" | nature users create --email … --password-stdin (or leave it out for a set-up link)',
    );
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stdin) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
    bytes += buffer.length;
    if (bytes > STDIN_MAX_BYTES) throw new UsageError(`standard input holds more than a password (over ${STDIN_MAX_BYTES} bytes)`);
    chunks.push(buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The configuration, once the backend servers the command uses answered (within NATURE_BACKEND_TIMEOUT_MS
 * each): a wrong URL fails at once, in one line. The key commands use no event store.
 */
async function reachable(config: Config, uses = { eventStore: true }): Promise<Config> {
  await checkBackends(config, { bus: false, ...uses });
  return config;
}

/** The stores' settings, read from the environment (with --data-dir first) when a command first asks for them. */
interface StoreSettings {
  /** The stores' settings; nothing else is read. */
  config(): Config;
  /**
   * The configuration, once the store that a command reads is known to exist: in a wrong directory it
   * fails, rather than create an empty store and report that it is empty.
   */
  existing(store: 'keys' | Environment): Config;
  /** The settings, once a command read them. */
  loaded(): Config | undefined;
}

function storeSettings(program: Command, env: NodeJS.ProcessEnv): StoreSettings {
  let loaded: Config | undefined;
  const config = (): Config => {
    const { dataDir } = program.opts<{ dataDir?: string }>();
    loaded ??= loadStoreConfig(dataDir === undefined ? env : { ...env, NATURE_DATA_DIR: dataDir });
    return loaded;
  };
  const existing = (store: 'keys' | Environment): Config => {
    const settings = config();
    const file = sqliteStoreFile(settings, store);
    // On EventStoreDB there is no file to look for: the server is asked instead (reachable).
    if (file === undefined) return settings;
    const what = store === 'keys' ? 'key store' : `${store === 'live' ? 'production' : 'sandbox'} event log`;
    const missing = new CliError(`no ${what} in ${settings.dataDir} (no ${basename(file)}): is --data-dir (or NATURE_DATA_DIR) right?`);
    if (!existsSync(settings.dataDir)) throw missing;
    // A directory this user cannot read would hide the file: say that instead.
    checkDataDir(settings.dataDir, { create: false });
    if (!existsSync(file)) throw missing;
    return settings;
  };
  return { config, existing, loaded: () => loaded };
}

/**
 * Where the keys are kept, and the dashboard's people and the account's application beside them (keys.db, or
 * nature_keys on MongoDB or PostgreSQL). Minting or making a user is how a new install starts, so `create` may
 * start the store: it says so.
 */
async function keysHome(settings: StoreSettings, output: Output, create: boolean): Promise<Config> {
  const config = settings.config();
  if (config.readModels.kind !== 'sqlite') return reachable(config, { eventStore: false });
  if (!create) return settings.existing('keys');
  const fresh = !existsSync(sqliteStoreFile(config, 'keys'));
  checkDataDir(config.dataDir, { create: true });
  if (fresh) output.err(`nature: no key store in ${config.dataDir} yet: starting a new one`);
  return config;
}

function keyStores(settings: StoreSettings, output: Output): KeyStores {
  return {
    open: async ({ create }) => openKeyStore(await keysHome(settings, output, create)),
    async openLeftBehind() {
      const config = settings.config();
      const { server } = backendsOf(config).readModels;
      if (server === undefined)
        throw new CliError(
          'the keys are kept in keys.db itself (NATURE_READ_MODELS is neither mongodb nor postgres): there is nothing to import',
        );
      const store = await openKeyStore(settings.existing('keys'), 'keys.db');
      return { store, file: sqliteStoreFile(config, 'keys'), backend: server.name };
    },
    // Asked for once the key store is open, so it is there (and its backend answered).
    openAccounts: () => openAccountStore(settings.config()),
  };
}

function accountStores(settings: StoreSettings, io: CliIo, output: Output): AccountStores {
  return {
    open: async ({ create }) => openAccountStore(await keysHome(settings, output, create)),
    // A user's address is sealed with a data key of the sandbox, made and wrapped by the master key as a subject's is.
    openDataKeys: () => openDataKeys(settings.config(), 'test'),
    publicBase() {
      // Only these two settings: the rest of the server's configuration is not this command's business.
      const config = loadConfig({ PORT: io.env.PORT, NATURE_PUBLIC_URL: io.env.NATURE_PUBLIC_URL });
      return config.publicUrl ?? `http://127.0.0.1:${config.port}`;
    },
    readStdin: () => readStdin(io.stdin),
    mailer: () => openMailer(loadMailConfig(io.env)),
  };
}

/** The usage read models, and beside the keys the account's plan and the keys' names (none yet: the default plan, no names). */
function usageStores(settings: StoreSettings): UsageStores {
  const keysThere = () => {
    const config = settings.config();
    return config.readModels.kind !== 'sqlite' || existsSync(sqliteStoreFile(config, 'keys'));
  };
  return {
    openReadModels: async (environment) =>
      openOperatorReadModels(await reachable(settings.existing(environment), { eventStore: false }), environment),
    async readPlan() {
      if (!keysThere()) return DEFAULT_PLAN_CHOICE;
      const accounts = await openAccountStore(settings.config());
      try {
        return await currentPlan(accounts);
      } finally {
        await accounts.close();
      }
    },
    async keyNames() {
      if (!keysThere()) return new Map();
      const keys = await openKeyStore(settings.config());
      try {
        return new Map((await keys.list()).map((key) => [key.id, key.name]));
      } finally {
        await keys.close();
      }
    },
    rateLimit: () => settings.config().rateLimit,
  };
}

/**
 * The careers catalogue, shared by both environments like the keys (careers.db, or beside the keys on a server). An
 * import may start careers.db; `status` never does.
 */
function catalogueAccess(settings: StoreSettings): CatalogueAccess {
  const home = async (): Promise<Config> => {
    const config = settings.config();
    if (config.readModels.kind !== 'sqlite') return reachable(config, { eventStore: false });
    checkDataDir(config.dataDir, { create: true });
    return config;
  };
  return {
    open: async () => openCatalogueStore(await home()),
    async openExisting() {
      const config = settings.config();
      if (config.readModels.kind === 'sqlite' && !existsSync(sqliteStoreFile(config, 'careers'))) return undefined;
      return openCatalogueStore(await home());
    },
    checkEveryMs: () => settings.config().careersCheckMs,
  };
}

function masterKeyAccess(settings: StoreSettings): MasterKeyAccess {
  return {
    keyFile: () => settings.config().masterKeyFile,
    async openStores() {
      for (const environment of environments) settings.existing(environment);
      const config = await reachable(settings.config(), { eventStore: false });
      const opened = [];
      try {
        for (const environment of environments) opened.push({ name: environment, store: await openWrappedKeys(config, environment) });
      } catch (error) {
        for (const { store } of opened) await store.close();
        throw error;
      }
      return opened;
    },
  };
}

/** The `nature` command line, with its stores' settings from `io.env` (and --data-dir first); `loaded` once a command read them. */
function commandLine(io: CliIo, output: Output) {
  const program = new Command('nature')
    .description(
      'Commands of the Nature Profile API. The operator commands work on the same data directory and backends as the server, while it runs; listen, trigger and mcp call a server with an API key.',
    )
    .version(packageJson.version, '-V, --version', 'print the version')
    .option('--data-dir <dir>', 'where the stores are (default: NATURE_DATA_DIR, then ./data)', (value) => {
      if (value.trim() === '') throw new InvalidArgumentError('A directory is needed.');
      return value;
    });
  const settings = storeSettings(program, io.env);
  const operatorStores = async (environment: Environment) =>
    openOperatorStores(await reachable(settings.existing(environment)), environment);
  program.addCommand(keysCommand(keyStores(settings, output), output));
  const accounts = accountStores(settings, io, output);
  program.addCommand(usersCommand(accounts, output).addCommand(disableTwoFactorCommand(accounts, output)));
  program.addCommand(applicationsCommand(accounts, output));
  program.addCommand(accountCommand(accounts, output));
  program.addCommand(profilesCommand(operatorStores, output, io.stderr));
  program.addCommand(auditCommand(operatorStores, output));
  program.addCommand(situationalCommand(operatorStores, output, io.stderr));
  program.addCommand(usageCommand(usageStores(settings), output));
  program.addCommand(
    logsCommand(
      async (environment) => openRequestLog(await reachable(settings.existing(environment), { eventStore: false }), environment),
      output,
    ),
  );
  program.addCommand(masterKeyCommand(masterKeyAccess(settings), output));
  program.addCommand(careersCommand(catalogueAccess(settings), output));
  // Callers' tools: they reach a server over HTTP with an API key, like any caller, not the stores.
  program.addCommand(listenCommand(io.env, output));
  program.addCommand(triggerCommand(io.env, output));
  program.addCommand(mcpCommand(io.env, io.stderr));

  addCommandHelp(program);
  return { program, loaded: settings.loaded };
}

/** The exit status and the one line that report a failure; `config` names the data directory in a store's problem. */
function failure(error: unknown, config: Config | undefined): { status: number; message: string } {
  if (error instanceof CommanderError) return { status: exitStatus.usage, message: error.message.replace(/^error: /, '') };
  if (error instanceof UsageError) return { status: exitStatus.usage, message: error.message };
  if (error instanceof CliError || error instanceof ConfigError || error instanceof OperatorError || error instanceof KeyRuleError)
    return { status: exitStatus.failed, message: error.message };
  const problem = config === undefined ? undefined : storeProblem(error, config.dataDir);
  return { status: exitStatus.failed, message: problem ?? (error instanceof Error ? error.message : String(error)) };
}

/** A terminal's width, else commander's own default. */
const helpWidth = (stream: Terminal): number => (stream.isTTY === true && stream.columns !== undefined ? stream.columns : 80);

const everyCommand = (command: Command): Command[] => [command, ...command.commands.flatMap(everyCommand)];

/**
 * Runs `nature` with `argv` (the arguments after the command's name) and returns its exit status. It never
 * exits the process, and prints and reads only through `io`: the operator's process and a test's run alike.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  // Whatever it prints may hold text others typed (names, organisations, ids, metadata): shown escaped, never obeyed.
  const output: Output = {
    out: (line) => io.stdout.write(`${escapeUnprintable(line)}\n`),
    err: (line) => io.stderr.write(`${escapeUnprintable(line)}\n`),
  };
  // Known before parsing, so that an error in parsing is reported as JSON too.
  const json = argv.includes('--json');
  const { program, loaded } = commandLine(io, output);
  // Commander prints help and the version through io, reports errors through us (one line, or JSON), and never exits.
  const commanderOutput: OutputConfiguration = {
    writeOut: (text) => io.stdout.write(text),
    writeErr: (text) => io.stderr.write(text),
    getOutHelpWidth: () => helpWidth(io.stdout),
    getErrHelpWidth: () => helpWidth(io.stderr),
    outputError: () => {},
  };
  for (const command of everyCommand(program)) command.exitOverride().configureOutput(commanderOutput);

  try {
    await program.parseAsync(argv, { from: 'user' });
    return exitStatus.ok;
  } catch (error) {
    // --help and --version end here too, having printed what they print.
    if (error instanceof CommanderError && error.exitCode === exitStatus.ok) return exitStatus.ok;
    const { status, message } = failure(error, loaded());
    const code = status === exitStatus.usage ? 'usage_error' : 'command_failed';
    // Help printed for a missing subcommand ('commander.help') is its own message.
    if (!(error instanceof CommanderError && error.code === 'commander.help')) {
      output.err(json ? JSON.stringify({ error: { code, message } }) : `nature: ${oneLine(message)}`);
    }
    return status;
  }
}
