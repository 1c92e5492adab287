import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadStoreConfig } from '../../src/config.js';

describe('configuration', () => {
  it('defaults to the embedded SQLite backends on port 8080 with data in ./data and synchronous=FULL', () => {
    expect(loadConfig({})).toEqual({
      port: 8080,
      host: '127.0.0.1',
      dataDir: resolve('data'),
      eventStore: { kind: 'sqlite' },
      readModels: { kind: 'sqlite' },
      sqliteSynchronous: 'FULL',
      bus: { kind: 'local' },
      webhooks: { retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000], timeoutMs: 10_000 },
      rateLimit: { perSecond: 100, burst: 200 },
      scoringVersion: 'mn76-v2',
      logLevel: 'info',
    });
  });

  it('selects EventStoreDB and MongoDB with their URLs', () => {
    const config = loadConfig({
      NATURE_EVENT_STORE: 'eventstoredb',
      EVENTSTORE_URL: 'esdb://eventstore:2113?tls=false',
      NATURE_READ_MODELS: 'mongodb',
      MONGODB_URL: 'mongodb://mongo:27017/?replicaSet=rs0',
    });
    expect(config.eventStore).toEqual({ kind: 'eventstoredb', url: 'esdb://eventstore:2113?tls=false' });
    expect(config.readModels).toEqual({ kind: 'mongodb', url: 'mongodb://mongo:27017/?replicaSet=rs0' });
  });

  it('selects NATS with its URL, and reads a retry schedule of durations', () => {
    const config = loadConfig({ NATURE_BUS: 'nats', NATS_URL: 'nats://127.0.0.1:4222', NATURE_WEBHOOK_RETRY_SCHEDULE: '50ms, 1.5s,2m,1h', NATURE_WEBHOOK_TIMEOUT_MS: '2000' });
    expect(config.bus).toEqual({ kind: 'nats', url: 'nats://127.0.0.1:4222' });
    expect(config.webhooks).toEqual({ retryScheduleMs: [50, 1500, 120_000, 3_600_000], timeoutMs: 2000 });
  });

  it('reads every setting from the environment; empty counts as unset', () => {
    const config = loadConfig({ PORT: '9000', HOST: '0.0.0.0', NATURE_DATA_DIR: '/srv/nature', NATURE_SQLITE_SYNCHRONOUS: 'NORMAL', LOG_LEVEL: 'warn', NATURE_EVENT_STORE: '', NATURE_SCORING_VERSION: 'mn76-v1' });
    expect(config).toMatchObject({ port: 9000, host: '0.0.0.0', dataDir: '/srv/nature', sqliteSynchronous: 'NORMAL', logLevel: 'warn', eventStore: { kind: 'sqlite' }, scoringVersion: 'mn76-v1' });
  });

  it.each([
    [{ PORT: 'http' }, /^configuration error: PORT="http" /],
    [{ PORT: '70000' }, /^configuration error: PORT="70000" /],
    [{ NATURE_EVENT_STORE: 'postgres' }, /^configuration error: NATURE_EVENT_STORE="postgres" .*sqlite/],
    [{ NATURE_SCORING_VERSION: 'mn76-v9' }, /^configuration error: NATURE_SCORING_VERSION="mn76-v9" .*mn76-v1.*mn76-v2/],
    [{ NATURE_EVENT_STORE: 'eventstoredb' }, /^configuration error: EVENTSTORE_URL is required when NATURE_EVENT_STORE=eventstoredb$/],
    [{ NATURE_EVENT_STORE: 'eventstoredb', EVENTSTORE_URL: 'http://x:2113' }, /^configuration error: EVENTSTORE_URL="http:\/\/x:2113" /],
    [{ NATURE_READ_MODELS: 'mongodb' }, /^configuration error: MONGODB_URL is required when NATURE_READ_MODELS=mongodb$/],
    [{ NATURE_READ_MODELS: 'redis' }, /^configuration error: NATURE_READ_MODELS="redis" /],
    [{ NATURE_SQLITE_SYNCHRONOUS: 'OFF' }, /^configuration error: NATURE_SQLITE_SYNCHRONOUS="OFF" /],
    [{ LOG_LEVEL: 'loud' }, /^configuration error: LOG_LEVEL="loud" /],
    [{ NATURE_BUS: 'kafka' }, /^configuration error: NATURE_BUS="kafka" /],
    [{ NATURE_BUS: 'nats' }, /^configuration error: NATS_URL is required when NATURE_BUS=nats$/],
    [{ NATURE_BUS: 'nats', NATS_URL: 'localhost:4222' }, /^configuration error: NATS_URL="localhost:4222" /],
    [{ NATURE_WEBHOOK_RETRY_SCHEDULE: '5s,soon' }, /^configuration error: NATURE_WEBHOOK_RETRY_SCHEDULE="5s,soon" /],
    [{ NATURE_WEBHOOK_TIMEOUT_MS: '10' }, /^configuration error: NATURE_WEBHOOK_TIMEOUT_MS="10" /],
  ])('refuses %o with one line naming the setting', (env, message) => {
    let error: unknown;
    try {
      loadConfig(env);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toMatch(message);
    expect((error as Error).message).not.toContain('\n');
  });

  it('reads only the stores\' settings for operator commands: a bad server setting does not stop them', () => {
    const config = loadStoreConfig({ PORT: 'http', LOG_LEVEL: 'loud', NATURE_WEBHOOK_TIMEOUT_MS: '10', NATURE_DATA_DIR: '/srv/nature', NATURE_SQLITE_SYNCHRONOUS: 'NORMAL' });
    expect(config).toMatchObject({ dataDir: '/srv/nature', sqliteSynchronous: 'NORMAL', eventStore: { kind: 'sqlite' }, readModels: { kind: 'sqlite' } });
    expect(loadStoreConfig({ NATURE_EVENT_STORE: 'eventstoredb', EVENTSTORE_URL: 'esdb://eventstore:2113?tls=false' }).eventStore).toEqual({
      kind: 'eventstoredb',
      url: 'esdb://eventstore:2113?tls=false',
    });
    expect(() => loadStoreConfig({ PORT: 'http', NATURE_EVENT_STORE: 'oracle' })).toThrow(/^configuration error: NATURE_EVENT_STORE="oracle" /);
    expect(() => loadStoreConfig({ NATURE_READ_MODELS: 'mongodb' })).toThrow(/^configuration error: MONGODB_URL is required when NATURE_READ_MODELS=mongodb$/);
  });
});
