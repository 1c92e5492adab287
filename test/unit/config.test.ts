import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';

describe('configuration', () => {
  it('defaults to the embedded SQLite backends on port 8080 with data in ./data and synchronous=FULL', () => {
    expect(loadConfig({})).toEqual({
      port: 8080,
      host: '127.0.0.1',
      dataDir: resolve('data'),
      eventStore: 'sqlite',
      readModels: 'sqlite',
      sqliteSynchronous: 'FULL',
      logLevel: 'info',
    });
  });

  it('reads every setting from the environment; empty counts as unset', () => {
    const config = loadConfig({ PORT: '9000', HOST: '0.0.0.0', NATURE_DATA_DIR: '/srv/nature', NATURE_SQLITE_SYNCHRONOUS: 'NORMAL', LOG_LEVEL: 'warn', NATURE_EVENT_STORE: '' });
    expect(config).toMatchObject({ port: 9000, host: '0.0.0.0', dataDir: '/srv/nature', sqliteSynchronous: 'NORMAL', logLevel: 'warn', eventStore: 'sqlite' });
  });

  it.each([
    [{ PORT: 'http' }, /^configuration error: PORT="http" /],
    [{ PORT: '70000' }, /^configuration error: PORT="70000" /],
    [{ NATURE_EVENT_STORE: 'postgres' }, /^configuration error: NATURE_EVENT_STORE="postgres" .*sqlite/],
    [{ NATURE_SQLITE_SYNCHRONOUS: 'OFF' }, /^configuration error: NATURE_SQLITE_SYNCHRONOUS="OFF" /],
    [{ LOG_LEVEL: 'loud' }, /^configuration error: LOG_LEVEL="loud" /],
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
});
