import type { Logger } from 'pino';
import { type Config, ConfigError, loadConfig } from './config.js';
import { checkDataDir, checkDataDirWritable } from './data-dir.js';
import { closeEnvironments, openEnvironments, openKeyStore, startEnvironments } from './environments.js';
import { buildApp } from './http/app.js';
import { addReadinessCheck } from './http/routes/health.js';
import { createLogger } from './logger.js';
import { listenProblem, oneLine, storeProblem } from './operator-errors.js';
import { stopOnSignals } from './shutdown.js';

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

async function openStores() {
  checkDataDir(config.dataDir, { create: true });
  const keys = openKeyStore(config);
  return { keys, envs: await openEnvironments(config, logger) };
}
const { keys, envs } = await openStores().catch((error: unknown) => {
  const problem = storeProblem(error, config.dataDir);
  if (problem !== undefined) return fail(`start-up error: ${problem}`, logger);
  // A backend that cannot be reached: its driver's message names it.
  return fail(`start-up error: could not open the backends: ${messageOf(error)}`, logger, error);
});
const app = await buildApp({ logger, keys, envs, rateLimit: config.rateLimit });
// A data directory that turned read-only would fail every write: readiness says so.
addReadinessCheck(app, 'data_dir', async () => checkDataDirWritable(config.dataDir));

await app.listen({ port: config.port, host: config.host }).catch((error: unknown) => {
  const problem = listenProblem(error, config.host, config.port);
  if (problem !== undefined) return fail(`start-up error: ${problem}`, logger);
  return fail(`start-up error: could not listen on ${config.host}:${config.port}: ${messageOf(error)}`, logger, error);
});
// Listening first: a port in use stops start-up before the projectors and dispatchers do any work.
startEnvironments(envs);
stopOnSignals(async () => {
  await app.close();
  await closeEnvironments(envs);
  await keys.close();
}, logger);
logger.info(
  { dataDir: config.dataDir, eventStore: config.eventStore.kind, readModels: config.readModels.kind, bus: config.bus.kind },
  'Nature Profile API ready',
);
