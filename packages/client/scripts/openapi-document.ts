import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { OpenAPI3 } from 'openapi-typescript';
import { buildApp } from '../../../src/http/app.js';
import { loadConfig } from '../../../src/settings/config.js';
import { createLogger } from '../../../src/support/logger.js';
import { backendUnavailable, closeEnvironments, openEnvironments, openKeyStore } from '../../../src/wiring/environments.js';

/**
 * The OpenAPI document exactly as the server serves it at /v1/openapi.json: the whole app built in-process
 * on a throw-away data directory (the document is generated from the routes, so only a real app has it).
 */
export async function liveOpenApiDocument(): Promise<OpenAPI3> {
  const dataDir = mkdtempSync(join(tmpdir(), 'nature-openapi-'));
  try {
    const config = loadConfig({ NATURE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
    const logger = createLogger(config.logLevel);
    const keys = await openKeyStore(config);
    const envs = await openEnvironments(config, logger);
    try {
      const app = await buildApp({ logger, keys, envs, unavailable: backendUnavailable });
      try {
        const response = await app.inject({ url: '/v1/openapi.json' });
        if (response.statusCode !== 200) throw new Error(`GET /v1/openapi.json answered ${response.statusCode}`);
        return response.json();
      } finally {
        await app.close();
      }
    } finally {
      await closeEnvironments(envs);
      await keys.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}
