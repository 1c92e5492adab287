import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, loadMailConfig, loadStoreConfig } from '../../src/settings/config.js';

describe('configuration', () => {
  it('defaults to the embedded SQLite backends on port 8080 with data in ./data and synchronous=FULL', () => {
    expect(loadConfig({})).toEqual({
      port: 8080,
      host: '127.0.0.1',
      dataDir: resolve('data'),
      masterKeyFile: resolve('data/master.key'),
      eventStore: { kind: 'sqlite' },
      readModels: { kind: 'sqlite' },
      mongodbAllowWeakWrites: false,
      sqliteSynchronous: 'FULL',
      backendTimeoutMs: 10_000,
      careersCheckMs: 5000,
      requestLogRetentionMs: 30 * 86_400_000,
      bus: { kind: 'local' },
      webhooks: {
        retryScheduleMs: [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000],
        timeoutMs: 10_000,
        allowPrivate: 'sandbox',
      },
      rateLimit: { perSecond: undefined, burst: undefined },
      maxWritesInFlight: 512,
      scoringVersion: 'mn76-v2',
      mcpLiveKeys: false,
      httpTimeouts: { headersMs: 10_000, requestMs: 30_000, keepAliveMs: 72_000, connectionMs: 120_000 },
      logLevel: 'info',
      leaderLeaseMs: 30_000,
      expiryCheckMs: 15_000,
    });
  });

  it('reads the HTTP time-outs, and refuses a headers time-out longer than the request time-out it is part of', () => {
    const timeouts = {
      NATURE_HEADERS_TIMEOUT_MS: '5000',
      NATURE_REQUEST_TIMEOUT_MS: '20000',
      NATURE_KEEP_ALIVE_TIMEOUT_MS: '65000',
      NATURE_CONNECTION_TIMEOUT_MS: '300000',
    };
    expect(loadConfig(timeouts).httpTimeouts).toEqual({ headersMs: 5_000, requestMs: 20_000, keepAliveMs: 65_000, connectionMs: 300_000 });
    expect(() => loadConfig({ ...timeouts, NATURE_HEADERS_TIMEOUT_MS: '30000' })).toThrow(
      /^configuration error: NATURE_HEADERS_TIMEOUT_MS="30000" must be at most NATURE_REQUEST_TIMEOUT_MS \(20000\)/,
    );
    for (const name of Object.keys(timeouts)) {
      expect(() => loadConfig({ [name]: '0' })).toThrow(new RegExp(`^configuration error: ${name}="0" `));
      expect(() => loadConfig({ [name]: '10s' })).toThrow(new RegExp(`^configuration error: ${name}="10s" must be a whole number`));
    }
  });

  it('selects EventStoreDB and MongoDB with their URLs', () => {
    const config = loadConfig({
      NATURE_EVENT_STORE: 'eventstoredb',
      EVENTSTORE_URL: 'esdb://eventstore:2113?tls=false',
      NATURE_READ_MODELS: 'mongodb',
      MONGODB_URL: 'mongodb://mongo:27017/?replicaSet=rs0',
    });
    expect(config.eventStore).toEqual({ kind: 'eventstoredb', url: 'esdb://eventstore:2113?tls=false', appendRetryMs: 20_000 });
    expect(config.readModels).toEqual({ kind: 'mongodb', url: 'mongodb://mongo:27017/?replicaSet=rs0' });
  });

  it('selects PostgreSQL for the log with its URL, several hosts included', () => {
    const url = 'postgres://nature@db1:5432,db2:5432/nature?target_session_attrs=read-write';
    expect(loadConfig({ NATURE_EVENT_STORE: 'postgres', POSTGRES_URL: url }).eventStore).toEqual({ kind: 'postgres', url });
    expect(loadStoreConfig({ NATURE_EVENT_STORE: 'postgres', POSTGRES_URL: url }).eventStore).toEqual({ kind: 'postgres', url });
    expect(loadConfig({ NATURE_READ_MODELS: 'postgres', POSTGRES_URL: url }).readModels).toEqual({ kind: 'postgres', url });
    // The embedded bus goes beside a PostgreSQL log, where replicas share it; NATS, when configured, stays the bus.
    expect(loadConfig({ NATURE_EVENT_STORE: 'postgres', POSTGRES_URL: url }).bus).toEqual({ kind: 'postgres', url });
    expect(loadConfig({ NATURE_READ_MODELS: 'postgres', POSTGRES_URL: url }).bus).toEqual({ kind: 'local' });
    expect(
      loadConfig({ NATURE_EVENT_STORE: 'postgres', POSTGRES_URL: url, NATURE_BUS: 'nats', NATS_URL: 'nats://127.0.0.1:4222' }).bus,
    ).toMatchObject({ kind: 'nats' });
    const refused = (() => {
      try {
        loadConfig({ NATURE_EVENT_STORE: 'postgres', POSTGRES_URL: 'pg://nature:s3cret@db/nature' });
      } catch (error) {
        return (error as Error).message;
      }
    })();
    expect(refused).toMatch(/^configuration error: POSTGRES_URL="pg:\/\/[^"]*db\/nature" must be/);
    expect(refused).not.toContain('s3cret');
  });

  it('refuses a PostgreSQL URL the driver cannot read, in one line without its password, and takes every usual shape', () => {
    const refusal = (url: string) => {
      try {
        loadConfig({ NATURE_EVENT_STORE: 'postgres', POSTGRES_URL: url });
      } catch (error) {
        return (error as Error).message;
      }
    };
    for (const url of [
      'postgres://nature:s3cret@db1:notaport/nature',
      'postgres://nature:s3cret@db1:99999/nature',
      'postgres://nature:s3cret@[::1/nature',
      'postgres://nature:s3cret@db1:5432,db2:x/nature',
    ]) {
      expect(refusal(url), url).toMatch(/^configuration error: POSTGRES_URL="postgres:\/\/[^"@]*" is not a URL the driver can read: /);
      expect(refusal(url)).not.toContain('s3cret');
    }
    for (const url of [
      'postgres://nature:p%40ss@db1:5432/nature?sslmode=verify-full&sslrootcert=/etc/ca.pem',
      'postgresql://nature@db1,db2:5433/nature?target_session_attrs=read-write',
      'postgres://nature@[::1]:5432/nature',
      'postgres:///nature',
    ])
      expect(refusal(url), url).toBeUndefined();
  });

  it('selects NATS with its URL, and reads a retry schedule of durations', () => {
    const config = loadConfig({
      NATURE_BUS: 'nats',
      NATS_URL: 'nats://127.0.0.1:4222',
      NATURE_WEBHOOK_RETRY_SCHEDULE: '50ms, 1.5s,2m,1h',
      NATURE_WEBHOOK_TIMEOUT_MS: '2000',
    });
    expect(config.bus).toEqual({
      kind: 'nats',
      url: 'nats://127.0.0.1:4222',
      auth: { kind: 'none' },
      tls: undefined,
      streamReplicas: 1,
      streamLimits: { maxBytes: 1_073_741_824, maxAgeMs: 7 * 86_400_000 },
    });
    expect(config.webhooks).toEqual({ retryScheduleMs: [50, 1500, 120_000, 3_600_000], timeoutMs: 2000, allowPrivate: 'sandbox' });
  });

  it('reads every setting from the environment; empty counts as unset', () => {
    const config = loadConfig({
      PORT: '9000',
      HOST: '0.0.0.0',
      NATURE_DATA_DIR: '/srv/nature',
      NATURE_SQLITE_SYNCHRONOUS: 'NORMAL',
      LOG_LEVEL: 'warn',
      NATURE_EVENT_STORE: '',
      NATURE_SCORING_VERSION: 'mn76-v1',
    });
    expect(config).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      dataDir: '/srv/nature',
      sqliteSynchronous: 'NORMAL',
      logLevel: 'warn',
      eventStore: { kind: 'sqlite' },
      scoringVersion: 'mn76-v1',
    });
  });

  it.each([
    [{ PORT: 'http' }, /^configuration error: PORT="http" /],
    [{ PORT: '70000' }, /^configuration error: PORT="70000" /],
    [{ NATURE_EVENT_STORE: 'cassandra' }, /^configuration error: NATURE_EVENT_STORE="cassandra" .*sqlite/],
    [{ NATURE_EVENT_STORE: 'postgres' }, /^configuration error: POSTGRES_URL is required when NATURE_EVENT_STORE=postgres$/],
    [
      { NATURE_EVENT_STORE: 'postgres', POSTGRES_URL: 'mysql://db:3306/nature' },
      /^configuration error: POSTGRES_URL="mysql:\/\/db:3306\/nature" must be a URL such as postgres:\/\//,
    ],
    [{ NATURE_SCORING_VERSION: 'mn76-v9' }, /^configuration error: NATURE_SCORING_VERSION="mn76-v9" .*mn76-v1.*mn76-v2/],
    [{ NATURE_EVENT_STORE: 'eventstoredb' }, /^configuration error: EVENTSTORE_URL is required when NATURE_EVENT_STORE=eventstoredb$/],
    [{ NATURE_EVENT_STORE: 'eventstoredb', EVENTSTORE_URL: 'http://x:2113' }, /^configuration error: EVENTSTORE_URL="http:\/\/x:2113" /],
    [{ NATURE_READ_MODELS: 'mongodb' }, /^configuration error: MONGODB_URL is required when NATURE_READ_MODELS=mongodb$/],
    [{ NATURE_READ_MODELS: 'postgres' }, /^configuration error: POSTGRES_URL is required when NATURE_READ_MODELS=postgres$/],
    [{ NATURE_READ_MODELS: 'redis' }, /^configuration error: NATURE_READ_MODELS="redis" /],
    [{ NATURE_SQLITE_SYNCHRONOUS: 'OFF' }, /^configuration error: NATURE_SQLITE_SYNCHRONOUS="OFF" /],
    [{ LOG_LEVEL: 'loud' }, /^configuration error: LOG_LEVEL="loud" /],
    [{ NATURE_BUS: 'kafka' }, /^configuration error: NATURE_BUS="kafka" /],
    [{ NATURE_BUS: 'nats' }, /^configuration error: NATS_URL is required when NATURE_BUS=nats$/],
    [{ NATURE_BUS: 'nats', NATS_URL: 'localhost:4222' }, /^configuration error: NATS_URL="localhost:4222" /],
    [{ NATURE_WEBHOOK_RETRY_SCHEDULE: '5s,soon' }, /^configuration error: NATURE_WEBHOOK_RETRY_SCHEDULE="5s,soon" /],
    [{ NATURE_WEBHOOK_TIMEOUT_MS: '10' }, /^configuration error: NATURE_WEBHOOK_TIMEOUT_MS="10" /],
    [{ NATURE_WEBHOOK_ALLOW_PRIVATE: 'always' }, /^configuration error: NATURE_WEBHOOK_ALLOW_PRIVATE="always" .*sandbox.*never/],
    [{ NATURE_BACKEND_TIMEOUT_MS: '50' }, /^configuration error: NATURE_BACKEND_TIMEOUT_MS="50" /],
    [{ NATURE_BACKEND_TIMEOUT_MS: '10s' }, /^configuration error: NATURE_BACKEND_TIMEOUT_MS="10s" must be a whole number/],
    [
      { NATURE_PUBLIC_URL: 'api.example.com' },
      /^configuration error: NATURE_PUBLIC_URL="api.example.com" must be the http:\/\/ or https:\/\/ origin/,
    ],
    [{ NATURE_PUBLIC_URL: 'ftp://api.example.com' }, /^configuration error: NATURE_PUBLIC_URL="ftp:\/\/api.example.com" /],
    [
      { NATURE_PUBLIC_URL: 'https://api.example.com/nature' },
      /^configuration error: NATURE_PUBLIC_URL="https:\/\/api.example.com\/nature" /,
    ],
    [{ NATURE_PUBLIC_URL: 'https://api.example.com/?v=1' }, /^configuration error: NATURE_PUBLIC_URL="https:\/\/api.example.com\/\?v=1" /],
    [{ NATURE_PUBLIC_URL: 'https://api.example.com#docs' }, /^configuration error: NATURE_PUBLIC_URL="https:\/\/api.example.com#docs" /],
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

  it('reads NATURE_PUBLIC_URL as an origin: no trailing slash, the default port dropped; unset, none', () => {
    expect(loadConfig({}).publicUrl).toBeUndefined();
    expect(loadConfig({ NATURE_PUBLIC_URL: 'https://api.example.com/' }).publicUrl).toBe('https://api.example.com');
    expect(loadConfig({ NATURE_PUBLIC_URL: 'http://10.0.0.5:8080' }).publicUrl).toBe('http://10.0.0.5:8080');
    expect(loadConfig({ NATURE_PUBLIC_URL: 'HTTPS://API.Example.com:443' }).publicUrl).toBe('https://api.example.com');
  });

  it('lets sandbox webhooks reach loopback by default only on a server that is local (NATURE_WEBHOOK_ALLOW_PRIVATE)', () => {
    const allowPrivate = (env: Record<string, string>) => loadConfig(env).webhooks.allowPrivate;
    expect(allowPrivate({})).toBe('sandbox');
    expect(allowPrivate({ HOST: '::1' })).toBe('sandbox');
    expect(allowPrivate({ NATURE_PUBLIC_URL: 'http://localhost:8080' })).toBe('sandbox');
    expect(allowPrivate({ NATURE_PUBLIC_URL: 'http://127.0.0.2:8080', HOST: '0.0.0.0' })).toBe('sandbox');
    expect(allowPrivate({ NATURE_PUBLIC_URL: 'http://[::1]:8080' })).toBe('sandbox');
    // Reachable by others: any dashboard user's sandbox key would make the server post to its own loopback.
    expect(allowPrivate({ HOST: '0.0.0.0' })).toBe('never');
    expect(allowPrivate({ NATURE_PUBLIC_URL: 'https://api.example.com' })).toBe('never');
    expect(allowPrivate({ NATURE_PUBLIC_URL: 'http://10.0.0.5:8080' })).toBe('never');
    expect(allowPrivate({ NATURE_PUBLIC_URL: 'https://api.example.com', NATURE_WEBHOOK_ALLOW_PRIVATE: 'sandbox' })).toBe('sandbox');
    expect(allowPrivate({ NATURE_WEBHOOK_ALLOW_PRIVATE: 'never' })).toBe('never');
  });

  it('never shows the password of a NATURE_PUBLIC_URL it refuses', () => {
    let message = '';
    try {
      loadConfig({ NATURE_PUBLIC_URL: 'https://ops:hunter2@api.example.com' });
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/^configuration error: NATURE_PUBLIC_URL="https:\/\/api.example.com" .*no path, query or credentials/);
    expect(message).not.toContain('hunter2');
  });

  it("reads only the stores' settings for operator commands: a bad server setting does not stop them", () => {
    const config = loadStoreConfig({
      PORT: 'http',
      LOG_LEVEL: 'loud',
      NATURE_WEBHOOK_TIMEOUT_MS: '10',
      NATURE_DATA_DIR: '/srv/nature',
      NATURE_SQLITE_SYNCHRONOUS: 'NORMAL',
    });
    expect(config).toMatchObject({
      dataDir: '/srv/nature',
      sqliteSynchronous: 'NORMAL',
      eventStore: { kind: 'sqlite' },
      readModels: { kind: 'sqlite' },
    });
    expect(loadStoreConfig({ NATURE_EVENT_STORE: 'eventstoredb', EVENTSTORE_URL: 'esdb://eventstore:2113?tls=false' }).eventStore).toEqual({
      kind: 'eventstoredb',
      url: 'esdb://eventstore:2113?tls=false',
      appendRetryMs: 20_000,
    });
    expect(() => loadStoreConfig({ PORT: 'http', NATURE_EVENT_STORE: 'oracle' })).toThrow(
      /^configuration error: NATURE_EVENT_STORE="oracle" /,
    );
    expect(() => loadStoreConfig({ NATURE_READ_MODELS: 'mongodb' })).toThrow(
      /^configuration error: MONGODB_URL is required when NATURE_READ_MODELS=mongodb$/,
    );
  });

  describe('backend URLs: only the schemes the installed clients read', () => {
    const eventStore = (url: string) => loadConfig({ NATURE_EVENT_STORE: 'eventstoredb', EVENTSTORE_URL: url }).eventStore;
    const bus = (url: string) => loadConfig({ NATURE_BUS: 'nats', NATS_URL: url }).bus;
    const refusal = (env: Record<string, string>): string => {
      try {
        loadConfig(env);
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        return (error as Error).message;
      }
      throw new Error(`accepted ${JSON.stringify(env)}`);
    };

    it('accepts esdb:// and esdb+discover:// for EventStoreDB, with or without credentials and several hosts', () => {
      for (const url of [
        'esdb://127.0.0.1:2113?tls=false',
        'esdb+discover://cluster.example.com:2113',
        'esdb://admin:changeit@node1:2113,node2:2113,node3:2113?tls=true',
      ]) {
        expect(eventStore(url)).toEqual({ kind: 'eventstoredb', url, appendRetryMs: 20_000 });
      }
    });

    it.each([
      'kurrentdb://127.0.0.1:2113?tls=false',
      'kdb://127.0.0.1:2113',
      'kurrentdb+discover://cluster:2113',
      'http://127.0.0.1:2113',
      'esdb:/127.0.0.1',
    ])('refuses EVENTSTORE_URL=%s, which @eventstore/db-client 6 cannot parse', (url) => {
      expect(refusal({ NATURE_EVENT_STORE: 'eventstoredb', EVENTSTORE_URL: url })).toMatch(
        /^configuration error: EVENTSTORE_URL=".*" must be an esdb:\/\/ or esdb\+discover:\/\/ URL/,
      );
    });

    it('accepts nats:// and tls:// for NATS', () => {
      expect(bus('nats://127.0.0.1:4222')).toMatchObject({ kind: 'nats', url: 'nats://127.0.0.1:4222' });
      expect(bus('tls://nats.example.com:4222')).toMatchObject({ kind: 'nats', url: 'tls://nats.example.com:4222' });
    });

    it.each(['ws://127.0.0.1:8080', 'wss://nats.example.com', 'http://127.0.0.1:4222'])(
      'refuses NATS_URL=%s: the nats client for Node speaks no WebSocket',
      (url) => {
        expect(refusal({ NATURE_BUS: 'nats', NATS_URL: url })).toMatch(
          /^configuration error: NATS_URL=".*" must be a nats:\/\/ or tls:\/\/ URL/,
        );
      },
    );

    it('refuses credentials in NATS_URL, which the client would drop, without printing them', () => {
      const message = refusal({ NATURE_BUS: 'nats', NATS_URL: 'nats://svc:s3cret@127.0.0.1:4222' });
      expect(message).toMatch(/^configuration error: NATS_URL="nats:\/\/127\.0\.0\.1:4222" must not carry credentials/);
      expect(message).not.toMatch(/s3cret|svc/);
    });

    it('logs in to NATS in the one way given: user and password, a token, an nkey seed file or a creds file; with TLS files or none', () => {
      const nats = { NATURE_BUS: 'nats', NATS_URL: 'tls://nats.example.com:4222' };
      const access = (env: Record<string, string>) => {
        const config = loadConfig({ ...nats, ...env }).bus;
        return config.kind === 'nats' ? { auth: config.auth, tls: config.tls } : undefined;
      };
      expect(access({ NATS_USER: 'svc', NATS_PASSWORD: 's3cret' })).toEqual({
        auth: { kind: 'user', user: 'svc', password: 's3cret' },
        tls: undefined,
      });
      expect(access({ NATS_TOKEN: 't0k' })?.auth).toEqual({ kind: 'token', token: 't0k' });
      expect(access({ NATS_NKEY_SEED_FILE: 'secrets/svc.nk' })?.auth).toEqual({ kind: 'nkey', seedFile: resolve('secrets/svc.nk') });
      expect(access({ NATS_CREDS_FILE: '/etc/nature/svc.creds' })?.auth).toEqual({ kind: 'creds', credsFile: '/etc/nature/svc.creds' });
      expect(access({ NATS_TLS_CA_FILE: '/etc/ca.pem', NATS_TLS_CERT_FILE: '/etc/c.pem', NATS_TLS_KEY_FILE: '/etc/c.key' })?.tls).toEqual({
        caFile: '/etc/ca.pem',
        certFile: '/etc/c.pem',
        keyFile: '/etc/c.key',
      });
      expect(access({ NATS_TLS_CA_FILE: '/etc/ca.pem' })?.tls).toEqual({ caFile: '/etc/ca.pem' });
    });

    it('refuses half a NATS login, two ways at once, a certificate without its key, and never prints a password or token', () => {
      const nats = { NATURE_BUS: 'nats', NATS_URL: 'nats://127.0.0.1:4222' };
      expect(refusal({ ...nats, NATS_USER: 'svc' })).toBe(
        'configuration error: NATS_USER and NATS_PASSWORD go together: give both or neither',
      );
      expect(refusal({ ...nats, NATS_PASSWORD: 's3cret' })).not.toContain('s3cret');
      expect(refusal({ ...nats, NATS_USER: 'svc', NATS_PASSWORD: 's3cret', NATS_TOKEN: 't0k' })).toBe(
        'configuration error: NATS_USER/NATS_PASSWORD and NATS_TOKEN are two ways of logging in to NATS: give one',
      );
      expect(refusal({ ...nats, NATS_TLS_CERT_FILE: '/etc/c.pem' })).toMatch(/NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together/);
      expect(refusal({ ...nats, NATS_STREAM_MAX_AGE: '30m' })).toMatch(
        /^configuration error: NATS_STREAM_MAX_AGE="30m" must be a duration in hours or days/,
      );
      expect(refusal({ ...nats, NATS_STREAM_MAX_AGE: '2h' })).toMatch(/^configuration error: NATS_STREAM_MAX_AGE="2h" must be at least 6h/);
      expect(loadConfig({ ...nats, NATS_STREAM_MAX_AGE: '48h', NATS_STREAM_MAX_BYTES: '2097152' }).bus).toMatchObject({
        streamLimits: { maxBytes: 2_097_152, maxAgeMs: 48 * 3_600_000 },
      });
    });

    it('never prints the password of a refused URL', () => {
      const message = refusal({ NATURE_EVENT_STORE: 'eventstoredb', EVENTSTORE_URL: 'kurrentdb://admin:hunter2@db.example.com:2113' });
      expect(message).toContain('kurrentdb://db.example.com:2113');
      expect(message).not.toMatch(/hunter2|admin/);
    });

    it('accepts a standalone MongoDB server only when NATURE_MONGODB_ALLOW_WEAK_WRITES=true, for the server and for operator commands', () => {
      expect(loadConfig({}).mongodbAllowWeakWrites).toBe(false);
      expect(loadConfig({ NATURE_MONGODB_ALLOW_WEAK_WRITES: 'false' }).mongodbAllowWeakWrites).toBe(false);
      expect(loadConfig({ NATURE_MONGODB_ALLOW_WEAK_WRITES: 'true' }).mongodbAllowWeakWrites).toBe(true);
      expect(loadStoreConfig({ NATURE_MONGODB_ALLOW_WEAK_WRITES: 'true' }).mongodbAllowWeakWrites).toBe(true);
      expect(() => loadConfig({ NATURE_MONGODB_ALLOW_WEAK_WRITES: 'yes' })).toThrow(
        /^configuration error: NATURE_MONGODB_ALLOW_WEAK_WRITES="yes" /,
      );
    });

    it('bounds an EventStoreDB append with its resends by EVENTSTORE_APPEND_RETRY_MS, for the server and for operator commands', () => {
      const esdb = { NATURE_EVENT_STORE: 'eventstoredb', EVENTSTORE_URL: 'esdb://eventstore:2113?tls=false' };
      expect(loadConfig({ ...esdb, EVENTSTORE_APPEND_RETRY_MS: '5000' }).eventStore).toMatchObject({ appendRetryMs: 5000 });
      expect(loadStoreConfig({ ...esdb, EVENTSTORE_APPEND_RETRY_MS: '5000' }).eventStore).toMatchObject({ appendRetryMs: 5000 });
      expect(refusal({ ...esdb, EVENTSTORE_APPEND_RETRY_MS: '10' })).toMatch(/^configuration error: EVENTSTORE_APPEND_RETRY_MS="10" /);
    });

    it('reads NATURE_BACKEND_TIMEOUT_MS, for the server and for operator commands', () => {
      expect(loadConfig({ NATURE_BACKEND_TIMEOUT_MS: '2500' }).backendTimeoutMs).toBe(2500);
      expect(loadStoreConfig({ NATURE_BACKEND_TIMEOUT_MS: '2500' }).backendTimeoutMs).toBe(2500);
    });

    it('reads NATURE_CAREERS_CHECK_MS, how often a server looks for a new careers catalogue', () => {
      expect(loadConfig({ NATURE_CAREERS_CHECK_MS: '1000' }).careersCheckMs).toBe(1000);
      expect(refusal({ NATURE_CAREERS_CHECK_MS: '5' })).toMatch(/^configuration error: NATURE_CAREERS_CHECK_MS="5" /);
    });

    it('reads NATURE_REQUEST_LOG_RETENTION_DAYS, for the server and for operator commands (the MongoDB TTL index follows it)', () => {
      expect(loadConfig({ NATURE_REQUEST_LOG_RETENTION_DAYS: '7' }).requestLogRetentionMs).toBe(7 * 86_400_000);
      expect(loadStoreConfig({ NATURE_REQUEST_LOG_RETENTION_DAYS: '7' }).requestLogRetentionMs).toBe(7 * 86_400_000);
      expect(refusal({ NATURE_REQUEST_LOG_RETENTION_DAYS: '0' })).toMatch(/^configuration error: NATURE_REQUEST_LOG_RETENTION_DAYS="0" /);
    });
  });

  describe('mail (NATURE_SMTP_URL)', () => {
    const from = 'Nature <dashboard@example.com>';
    const refusal = (env: Record<string, string>) => {
      try {
        loadConfig(env);
      } catch (error) {
        return (error as Error).message;
      }
    };

    it('reads the relay: TLS from the start on smtps://, the usual ports, a percent-decoded login, the sender and the timeout', () => {
      expect(loadConfig({}).mail).toBeUndefined();
      expect(loadConfig({ NATURE_SMTP_URL: 'smtps://relay.example.com', NATURE_MAIL_FROM: from }).mail).toEqual({
        relay: { host: 'relay.example.com', port: 465, secure: true, auth: undefined },
        from,
        timeoutMs: 10_000,
      });
      const mail = loadConfig({
        NATURE_SMTP_URL: 'smtp://mailer%40example.com:p%40ss%3Aw%2Frd@[::1]:2525/',
        NATURE_MAIL_FROM: 'dashboard@example.com',
        NATURE_SMTP_TIMEOUT_MS: '3000',
      }).mail;
      expect(mail).toEqual({
        relay: { host: '::1', port: 2525, secure: false, auth: { user: 'mailer@example.com', pass: 'p@ss:w/rd' } },
        from: 'dashboard@example.com',
        timeoutMs: 3000,
      });
      expect(loadMailConfig({ NATURE_SMTP_URL: 'smtp://relay.example.com', NATURE_MAIL_FROM: from, PORT: 'http' })?.relay.port).toBe(587);
    });

    it('refuses another scheme, a path, a query, half a login or a bad escape, in one line without the password', () => {
      for (const url of [
        'http://relay.example.com',
        'smtp://relay.example.com/inbox',
        'smtp://relay.example.com?from=x',
        'smtp://mailer@relay.example.com',
        'smtp://mailer:s3cret%zz@relay.example.com',
        'smtp://mailer:s3cret@relay.example.com:99999',
        'smtp://',
        'relay.example.com:25',
      ]) {
        const refused = refusal({ NATURE_SMTP_URL: url, NATURE_MAIL_FROM: from });
        expect(refused, url).toMatch(/^configuration error: NATURE_SMTP_URL=\S+ must be smtp:\/\/\[user:password@\]host\[:port\]/);
        expect(refused).not.toContain('s3cret');
      }
      // Credentials where no scheme marks them: the whole value is hidden.
      expect(refusal({ NATURE_SMTP_URL: 'mailer:s3cret@relay.example.com', NATURE_MAIL_FROM: from })).toMatch(
        /^configuration error: NATURE_SMTP_URL=\(hidden\) must be/,
      );
    });

    it('needs a sender that is one address, and a timeout from 1 s to 5 min', () => {
      const relay = { NATURE_SMTP_URL: 'smtps://relay.example.com' };
      expect(refusal(relay)).toBe('configuration error: NATURE_MAIL_FROM is required when NATURE_SMTP_URL is set');
      for (const sender of ['dashboard', 'a@b.c, d@e.f', 'Nature <dashboard@example.com', 'x@example.com\r\nBcc: y@example.com'])
        expect(refusal({ ...relay, NATURE_MAIL_FROM: sender }), sender).toMatch(
          /^configuration error: NATURE_MAIL_FROM=.* must be the address/,
        );
      for (const timeout of ['999', '300001', '1e4'])
        expect(refusal({ ...relay, NATURE_MAIL_FROM: from, NATURE_SMTP_TIMEOUT_MS: timeout })).toMatch(
          /^configuration error: NATURE_SMTP_TIMEOUT_MS=/,
        );
    });
  });
});
