import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Logger } from 'pino';
import { registerDashboard } from '../dashboard/plugin.js';
import { buildApp } from '../http/app.js';
import { addReadinessCheck } from '../http/routes/health.js';
import { type KeyStore, keysMissing } from '../ports/key-store.js';
import { type Config, ConfigError, loadConfig } from '../settings/config.js';
import { checkDataDir, checkDataDirWritable } from '../support/data-dir.js';
import { createLogger } from '../support/logger.js';
import { listenProblem, OperatorError, oneLine, storeProblem } from '../support/operator-errors.js';
import { runtimeFigures, watchEventLoop } from '../support/runtime-figures.js';
import { stopOnSignals } from '../support/shutdown.js';
import { checkBackends } from '../wiring/backend-checks.js';
import { backendsOf } from '../wiring/backends.js';
import { openConfiguredCareersSource } from '../wiring/careers-source.js';
import {
  backendUnavailable,
  closeEnvironments,
  openAccountStore,
  openEnvironments,
  openKeyStore,
  startEnvironments,
} from '../wiring/environments.js';
import { openMailer } from '../wiring/mailer.js';
import { localUrl, startLine } from './start-line.js';

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Stops start-up with one line on stderr, never a stack trace. The log gets the line too, with the error
 * whole only when it is given: a fault that is not the operator's to fix, to be reported.
 */
function fail(line: string, logger?: Logger, error?: unknown): never {
  logger?.fatal(error === undefined ? {} : { err: error }, line);
  process.stderr.write(`${oneLine(line)}\n`);
  process.exit(1);
}

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    return fail(error instanceof ConfigError ? error.message : `configuration error: ${messageOf(error)}`);
  }
}

const config = readConfig();
const logger = createLogger(config.logLevel);
// A rejected promise nobody handled is a fault to report, not a reason to stop serving every caller (Node's default).
process.on('unhandledRejection', (reason) => logger.error({ err: reason }, 'unhandled promise rejection; the server goes on'));

/**
 * Keys minted into keys.db before the keys moved to MongoDB or PostgreSQL would answer 401 from now on, silently: start-up
 * stops and says what to do instead, until `nature keys import` has copied every one of them.
 */
async function refuseKeysLeftBehind(keys: KeyStore): Promise<void> {
  const { keysLeftBehindIn: file, server } = backendsOf(config).readModels;
  if (file === undefined || !existsSync(file)) return;
  const backend = server?.name;
  const legacy = await openKeyStore(config, 'keys.db');
  try {
    const missing = await keysMissing(legacy, keys);
    if (missing.length > 0) {
      throw new OperatorError(
        `${file} holds ${missing.length} API key(s) that are not in ${backend}, where keys are kept with NATURE_READ_MODELS=${config.readModels.kind}: run "nature keys import" once, then remove ${file}`,
      );
    }
  } finally {
    await legacy.close();
  }
  logger.warn({ file }, `keys.db is no longer read (every key in it is in ${backend}): remove it`);
}

async function openStores() {
  checkDataDir(config.dataDir, { create: true });
  // Every backend server answers, or start-up stops here naming the one that does not.
  await checkBackends(config);
  const keys = await openKeyStore(config);
  await refuseKeysLeftBehind(keys);
  return {
    keys,
    accounts: await openAccountStore(config),
    envs: await openEnvironments(config, logger),
    // The careers catalogue, picked up again whenever `nature careers import` installs a new one (the careers routes').
    careers: await openConfiguredCareersSource(config, logger),
  };
}
const { keys, accounts, envs, careers } = await openStores().catch((error: unknown) => {
  const problem = storeProblem(error, config.dataDir);
  if (problem !== undefined) return fail(`start-up error: ${problem}`, logger);
  // A backend that cannot be reached: its driver's message names it.
  return fail(`start-up error: could not open the backends: ${messageOf(error)}`, logger, error);
});
const app = await buildApp({
  logger,
  keys,
  envs,
  rateLimit: config.rateLimit,
  maxWritesInFlight: config.maxWritesInFlight,
  webhooks: config.webhooks,
  publicUrl: config.publicUrl,
  unavailable: backendUnavailable,
  mcp: { liveKeys: config.mcpLiveKeys },
  timeouts: config.httpTimeouts,
  careers,
  accounts,
});
// Mail through NATURE_SMTP_URL's relay, if set: a relay that fails costs a mailed link, never the dashboard.
const mailer = openMailer(config.mail, logger);
// The developer dashboard under /dashboard, on the same stores as the API and the operator's command line.
await registerDashboard(app, {
  accounts,
  keys,
  envs,
  clock: () => new Date(),
  publicUrl: config.publicUrl,
  unavailable: backendUnavailable,
  careers,
  mailer,
  rateLimit: config.rateLimit,
});
// A data directory that turned read-only would fail every write: readiness says so.
addReadinessCheck(app, 'data_dir', async () => checkDataDirWritable(config.dataDir));

await app.listen({ port: config.port, host: config.host }).catch((error: unknown) => {
  const problem = listenProblem(error, config.host, config.port);
  if (problem !== undefined) return fail(`start-up error: ${problem}`, logger);
  return fail(`start-up error: could not listen on ${config.host}:${config.port}: ${messageOf(error)}`, logger, error);
});
// Listening first: a port in use stops start-up before the projectors and dispatchers do any work.
startEnvironments(envs);
void mailer?.check();
watchEventLoop();
stopOnSignals(async () => {
  await app.close();
  await closeEnvironments(envs);
  await keys.close();
  await accounts.close();
  await careers.close();
  await mailer?.close();
  logger.info(runtimeFigures(), 'runtime figures');
}, logger);
logger.info(
  { dataDir: config.dataDir, eventStore: config.eventStore.kind, readModels: config.readModels.kind, bus: config.bus.kind },
  'Nature Profile API ready',
);
// A person at a terminal gets one line to start from; a log collector (anything but a terminal) gets the JSON alone.
if (process.stdout.isTTY) {
  // A store that cannot list its keys now leaves the hint out rather than stop a server that is serving.
  const hasKeys = await keys.list().then(
    (list) => list.length > 0,
    () => true,
  );
  process.stdout.write(
    `${startLine(localUrl(config.host, config.port), hasKeys, config.dataDir === resolve('data') ? undefined : config.dataDir)}\n`,
  );
}
