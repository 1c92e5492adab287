import type { Environment } from '../domain/api-keys.js';

/** Each environment's name in file names, EventStoreDB stream prefixes (`sandbox.`) and MongoDB databases (`nature_sandbox`). */
export const storeNames: Record<Environment, string> = { test: 'sandbox', live: 'production' };
