import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll } from 'vitest';
import { type DashboardRoute, registerDashboard } from '../../src/dashboard/plugin.js';
import { type Environment, type KeyType, mintKey, type Scope } from '../../src/domain/api-keys.js';
import { buildApp } from '../../src/http/app.js';
import type { CareersCatalogue } from '../../src/http/routes/careers.js';
import type { AccountStore } from '../../src/ports/account-store.js';
import type { KeyStore } from '../../src/ports/key-store.js';
import type { Mailer } from '../../src/ports/mailer.js';
import { loadConfig } from '../../src/settings/config.js';
import { createLogger } from '../../src/support/logger.js';
import {
  backendUnavailable,
  closeEnvironments,
  type Environments,
  openAccountStore,
  openEnvironments,
  openKeyStore,
  startEnvironments,
} from '../../src/wiring/environments.js';
import { tempDir } from './temp-dir.js';

export interface TestApp {
  app: FastifyInstance;
  /** Every route the dashboard registered, for tests that walk them all. */
  dashboardRoutes: DashboardRoute[];
  keys: KeyStore;
  /** The dashboard's users, sessions, application and activity. */
  accounts: AccountStore;
  envs: Environments;
  /** The app's NATURE_DATA_DIR, for running operator commands on the same stores. */
  dataDir: string;
  /** Every log line the app wrote. */
  logs: string[];
  /** Moves the app's clock forward (expiry). */
  advance(ms: number): void;
  mint(environment: Environment, type: KeyType, scopes?: Scope[]): Promise<{ id: string; raw: string }>;
  /** Closes the app and its stores, keeping the data directory (to read its files). */
  stop(): Promise<void>;
  /** Stops and removes the data directory. */
  close(): Promise<void>;
}

/**
 * The whole app on a fresh data directory, driven in-process with app.inject; `settings` as in the environment,
 * `careers` the catalogue it serves (none by default, as before an import), `mailer` the dashboard's (none: links shown once).
 */
export async function openTestApp(
  settings: Record<string, string> = {},
  { careers, mailer }: { careers?: CareersCatalogue; mailer?: Mailer } = {},
): Promise<TestApp> {
  const dir = tempDir();
  // The tests' receivers listen on loopback: sandbox deliveries may go there, as on a developer's machine.
  const config = loadConfig({ NATURE_DATA_DIR: dir.path, LOG_LEVEL: 'debug', NATURE_WEBHOOK_ALLOW_PRIVATE: 'sandbox', ...settings });
  const logs: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const logger = createLogger(config.logLevel, sink);
  const keys = await openKeyStore(config);
  const accounts = await openAccountStore(config);
  let offsetMs = 0;
  let stopped = false;
  const clock = () => new Date(Date.now() + offsetMs);
  const envs = await openEnvironments(config, logger, clock);
  startEnvironments(envs);
  const app = await buildApp({
    logger,
    keys,
    envs,
    rateLimit: config.rateLimit,
    maxWritesInFlight: config.maxWritesInFlight,
    clock,
    webhooks: config.webhooks,
    unavailable: backendUnavailable,
    publicUrl: config.publicUrl,
    mcp: { liveKeys: config.mcpLiveKeys },
    timeouts: config.httpTimeouts,
    ...(careers !== undefined && { careers }),
    accounts,
  });
  const dashboardRoutes = await registerDashboard(app, {
    accounts,
    keys,
    envs,
    clock,
    publicUrl: config.publicUrl,
    unavailable: backendUnavailable,
    ...(careers !== undefined && { careers }),
    mailer,
  });
  const testApp: TestApp = {
    app,
    dashboardRoutes,
    keys,
    accounts,
    envs,
    dataDir: dir.path,
    logs,
    advance(ms) {
      offsetMs += ms;
    },
    async mint(environment, type, scopes = ['nature:read', 'nature:write']) {
      const { raw, record } = mintKey({ name: 'test', environment, type, scopes }, new Date());
      await keys.insert(record);
      return { id: record.id, raw };
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await app.close();
      await closeEnvironments(envs);
      await keys.close();
      await accounts.close();
    },
    async close() {
      await testApp.stop();
      dir.cleanup();
    },
  };
  return testApp;
}

export const auth = (raw: string) => ({ authorization: `Bearer ${raw}` });

export const validSubject = (externalId = `emp-${Math.random().toString(36).slice(2)}`) => ({
  external_subject_id: externalId,
  metadata: { cohort: '2026-spring', role: 'analyst' },
  consent: { text_version: 'consent-v3', granted_at: '2026-11-01T09:30:00.000Z', ui_hash: `sha256:${'ab'.repeat(32)}` },
});

/**
 * Every event in an environment's log, for asserting that a rejected request appended nothing. The publisher's records
 * that it announced an earlier request's events (`notification-…` streams) are left out: they land whenever the
 * leader gets to them, after the request that caused them has been answered.
 */
export async function logLength(envs: Environments, environment: Environment): Promise<number> {
  const events = await envs[environment].events.readAll({ limit: 1_000_000 });
  return events.filter((event) => !event.streamName.startsWith('notification-')).length;
}

/** One app for a test file (opened before its tests, closed after), handed over with a sandbox sk key. */
export function useTestApp(use: (app: TestApp, key: string) => void): void {
  let app: TestApp;
  beforeAll(async () => {
    app = await openTestApp();
    use(app, (await app.mint('test', 'sk')).raw);
  });
  afterAll(async () => {
    await app.close();
  });
}
