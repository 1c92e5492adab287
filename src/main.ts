import { ConfigError, type Config, loadConfig } from './config.js';
import { closeEnvironments, openEnvironments, openKeyStore, startEnvironments } from './environments.js';
import { buildApp } from './http/app.js';
import { createLogger } from './logger.js';

function readConfig(): Config {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(1);
    }
    throw error;
  }
}

const config = readConfig();
const logger = createLogger(config.logLevel);
const keys = openKeyStore(config);
const envs = await openEnvironments(config, logger).catch((error: Error) => {
  // A backend that cannot be reached at start-up stops it, with one line that names the problem.
  logger.fatal({ err: error }, 'could not open the backends');
  process.stderr.write(`start-up error: could not open the backends: ${error.message}\n`);
  process.exit(1);
});
startEnvironments(envs);
const app = await buildApp({ logger, keys, envs });

let stopping = false;
async function shutdown(signal: string): Promise<void> {
  if (stopping) return;
  stopping = true;
  logger.info({ signal }, 'shutting down');
  await app.close();
  await closeEnvironments(envs);
  await keys.close();
  process.exit(0);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

await app.listen({ port: config.port, host: config.host });
logger.info(
  { dataDir: config.dataDir, eventStore: config.eventStore.kind, readModels: config.readModels.kind, bus: config.bus.kind },
  'Nature Profile API ready',
);
