import { resolve } from 'node:path';
import { z } from 'zod';

const schema = z.object({
  PORT: z.string().regex(/^\d+$/, 'must be a whole number').transform(Number).pipe(z.number().int().min(1).max(65535)).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  NATURE_DATA_DIR: z.string().min(1).default('./data'),
  NATURE_EVENT_STORE: z.enum(['sqlite']).default('sqlite'),
  NATURE_READ_MODELS: z.enum(['sqlite']).default('sqlite'),
  NATURE_SQLITE_SYNCHRONOUS: z.enum(['FULL', 'NORMAL']).default('FULL'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  port: number;
  host: string;
  /** Absolute. */
  dataDir: string;
  eventStore: 'sqlite';
  readModels: 'sqlite';
  sqliteSynchronous: 'FULL' | 'NORMAL';
  logLevel: z.infer<typeof schema>['LOG_LEVEL'];
}

/** A setting that stops start-up; its message is one line naming the setting. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Reads the configuration once from the environment. Empty variables count as unset. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const given = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = schema.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0]);
    throw new ConfigError(`configuration error: ${name}=${JSON.stringify(env[name])} ${issue.message}`);
  }
  const settings = parsed.data;
  return {
    port: settings.PORT,
    host: settings.HOST,
    dataDir: resolve(settings.NATURE_DATA_DIR),
    eventStore: settings.NATURE_EVENT_STORE,
    readModels: settings.NATURE_READ_MODELS,
    sqliteSynchronous: settings.NATURE_SQLITE_SYNCHRONOUS,
    logLevel: settings.LOG_LEVEL,
  };
}
