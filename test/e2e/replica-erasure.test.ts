import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/http/app.js';
import { loadConfig } from '../../src/settings/config.js';
import { createLogger } from '../../src/support/logger.js';
import {
  backendUnavailable,
  closeEnvironments,
  type Environments,
  openEnvironments,
  startEnvironments,
} from '../../src/wiring/environments.js';
import { auth, openTestApp, type TestApp, validSubject } from '../support/test-app.js';

describe('an erasure served by one replica', () => {
  let first: TestApp;
  let second: { app: FastifyInstance; envs: Environments };
  let key: string;
  beforeAll(async () => {
    first = await openTestApp();
    key = (await first.mint('test', 'sk')).raw;
    // A second replica of the same data directory, in this process: it follows, as the first one leads.
    const config = loadConfig({ NATURE_DATA_DIR: first.dataDir, LOG_LEVEL: 'silent' });
    const logger = createLogger(config.logLevel);
    const envs = await openEnvironments(config, logger);
    startEnvironments(envs);
    second = {
      app: await buildApp({ logger, keys: first.keys, envs, rateLimit: config.rateLimit, unavailable: backendUnavailable }),
      envs,
    };
  });
  afterAll(async () => {
    await second.app.close();
    await closeEnvironments(second.envs);
    await first.close();
  });

  it("reads as erased at once in another replica's audit, which had just read the subject's personal data", async () => {
    const created = await first.app.inject({ method: 'POST', url: '/v1/nature/subjects', headers: auth(key), payload: validSubject() });
    expect(created.statusCode).toBe(201);
    const audit = `/v1/nature/subjects/${created.json().id}/audit`;
    const before = await second.app.inject({ method: 'GET', url: audit, headers: auth(key) });
    expect(before.json().data[0]).toMatchObject({ type: 'subject.created', personal_data: 'present' });

    const erased = await first.app.inject({ method: 'DELETE', url: `/v1/nature/subjects/${created.json().id}`, headers: auth(key) });
    expect(erased.statusCode).toBe(200);
    const after = await second.app.inject({ method: 'GET', url: audit, headers: auth(key) });
    expect(after.statusCode).toBe(200);
    expect(after.json().data[0]).toMatchObject({ personal_data: 'erased', data: { external_subject_id: null, metadata: null } });
  });
});
