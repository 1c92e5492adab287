import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { nkeys } from 'nats';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { NatsLoginRefusedError } from '../../src/adapters/nats/access.js';
import { NatsBus } from '../../src/adapters/nats/bus.js';
import { probeNats } from '../../src/adapters/nats/probe.js';
import type { NatsAccess } from '../../src/settings/config.js';
import { backendProblem, OperatorError } from '../../src/support/operator-errors.js';
import { testOperator } from '../support/nats-jwt.js';
import { natsFixtures, natsServerPath } from '../support/nats-server.js';
import { freePort, runServerToExit } from '../support/processes.js';
import { makeTestPki } from '../support/tls.js';

describe.skipIf(natsServerPath === undefined)('logging in to NATS and TLS (real nats-server processes that ask for them)', () => {
  const fixtures = natsFixtures();
  const start = (config: string) => fixtures.start(undefined, config);
  const scratch = () => fixtures.scratch('nature-nats-access-');

  /** The bus works with `access`: a message published goes round to its consumer. */
  const roundTrip = async (access: NatsAccess) => {
    await probeNats(access, 5000);
    const bus = await NatsBus.connect({ access, environment: 'test', ackWaitMs: 2000, connectTimeoutMs: 5000 });
    fixtures.keep(bus);
    await bus.publish('deliveries', 'hello', { n: 1 });
    const seen: string[] = [];
    const controller = new AbortController();
    await bus.consume(
      'deliveries',
      async (message) => {
        seen.push(message.id);
        controller.abort();
        return { kind: 'ack' };
      },
      { signal: controller.signal },
    );
    expect(seen).toEqual(['hello']);
  };

  /** The one start-up line a refused `access` gives (as checkBackends words it), and what the bus's own start says. */
  const refusal = async (access: NatsAccess) => {
    const error = await probeNats(access, 5000).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(NatsLoginRefusedError);
    await expect(NatsBus.connect({ access, environment: 'test', connectTimeoutMs: 5000 })).rejects.toThrow(OperatorError);
    return backendProblem({ name: 'NATS', variable: 'NATS_URL', url: access.url }, error, 5000);
  };

  it('logs in with NATS_USER and NATS_PASSWORD; a wrong or missing password is refused in one line that names the settings, never the password', async () => {
    const server = await start('authorization { user: svc, password: "s3cret-pw" }');
    await roundTrip({ ...server.access, auth: { kind: 'user', user: 'svc', password: 's3cret-pw' } });
    const host = server.url.replace('nats://', '');
    const wrong = await refusal({ ...server.access, auth: { kind: 'user', user: 'svc', password: 'wrong-pw' } });
    expect(wrong).toMatch(
      new RegExp(
        `^NATS at ${host.replace(/\./g, '\\.')} \\(NATS_URL\\) refused the credentials in NATS_USER and NATS_PASSWORD \\(.*Authorization Violation.*\\)$`,
        'i',
      ),
    );
    expect(wrong).not.toContain('wrong-pw');
    expect(await refusal(server.access)).toMatch(
      /asks for credentials and none were given .*: set NATS_USER and NATS_PASSWORD, NATS_TOKEN, NATS_NKEY_SEED_FILE or NATS_CREDS_FILE$/,
    );
  });

  it('logs in with NATS_TOKEN; a wrong token is refused', async () => {
    const server = await start('authorization { token: "t0ken-of-the-service" }');
    await roundTrip({ ...server.access, auth: { kind: 'token', token: 't0ken-of-the-service' } });
    const wrong = await refusal({ ...server.access, auth: { kind: 'token', token: 'not-the-t0ken' } });
    expect(wrong).toMatch(/refused the credentials in NATS_TOKEN/);
    expect(wrong).not.toContain('not-the-t0ken');
  });

  it('logs in with the nkey seed in NATS_NKEY_SEED_FILE; another key is refused, and a seed file that cannot be read is named', async () => {
    const user = nkeys.createUser();
    const server = await start(`authorization { users = [ { nkey: ${user.getPublicKey()} } ] }`);
    const dir = scratch();
    const seedFile = join(dir, 'service.nk');
    writeFileSync(seedFile, `${new TextDecoder().decode(user.getSeed())}\n`, { mode: 0o600 });
    await roundTrip({ ...server.access, auth: { kind: 'nkey', seedFile } });
    const strangerFile = join(dir, 'stranger.nk');
    writeFileSync(strangerFile, new TextDecoder().decode(nkeys.createUser().getSeed()));
    expect(await refusal({ ...server.access, auth: { kind: 'nkey', seedFile: strangerFile } })).toMatch(
      /refused the credentials in NATS_NKEY_SEED_FILE/,
    );
    const missing = join(dir, 'missing.nk');
    await expect(probeNats({ ...server.access, auth: { kind: 'nkey', seedFile: missing } }, 5000)).rejects.toThrow(
      `NATS_NKEY_SEED_FILE ${missing} does not exist (ENOENT)`,
    );
  });

  it('logs in with a .creds file (NATS_CREDS_FILE) to a server in operator mode, as a managed NATS runs; a user of another account is refused', async () => {
    const operator = testOperator();
    const server = await start(operator.config);
    const dir = scratch();
    const credsFile = join(dir, 'svc.creds');
    writeFileSync(credsFile, operator.creds(), { mode: 0o600 });
    await roundTrip({ ...server.access, auth: { kind: 'creds', credsFile } });
    const strangerFile = join(dir, 'stranger.creds');
    writeFileSync(strangerFile, operator.stranger());
    expect(await refusal({ ...server.access, auth: { kind: 'creds', credsFile: strangerFile } })).toMatch(
      /refused the credentials in NATS_CREDS_FILE/,
    );
  });

  it('speaks TLS to a server whose certificate a CA made in the test signed, with a client certificate it verifies; without them it gets nowhere', async () => {
    const pki = makeTestPki(scratch());
    const server = await start(
      `tls { cert_file: ${JSON.stringify(pki.server.certFile)}, key_file: ${JSON.stringify(pki.server.keyFile)}, ca_file: ${JSON.stringify(pki.caFile)}, verify: true }`,
    );
    const url = server.url.replace('nats://', 'tls://');
    await roundTrip({ url, auth: { kind: 'none' }, tls: { caFile: pki.caFile, ...pki.client } });
    // The server's certificate is not trusted without the CA; the server refuses a client without a certificate.
    await expect(probeNats({ url, auth: { kind: 'none' }, tls: { ...pki.client } }, 5000)).rejects.toThrow();
    await expect(probeNats({ url, auth: { kind: 'none' }, tls: { caFile: pki.caFile } }, 5000)).rejects.toThrow();
  });

  it('says in the log, at error, that the credentials were refused when the server stops accepting them after start-up (revoked, rotated)', async () => {
    const server = await start('authorization { user: svc, password: "s3cret-pw" }');
    const lines: string[] = [];
    const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(line) });
    const bus = await NatsBus.connect({
      access: { ...server.access, auth: { kind: 'user', user: 'svc', password: 's3cret-pw' } },
      environment: 'test',
      connectTimeoutMs: 5000,
      logger,
    });
    fixtures.keep(bus);
    await server.reload('authorization { user: svc, password: "rotated-pw" }');
    await expect
      .poll(() => lines.map((line) => JSON.parse(line) as { level: number; msg: string }), { timeout: 30_000 })
      .toContainEqual(
        expect.objectContaining({
          level: 50,
          msg: expect.stringMatching(/^NATS refused the credentials in NATS_USER and NATS_PASSWORD .*; trying again$/),
        }),
      );
    expect(lines.join('\n')).not.toMatch(/s3cret-pw|rotated-pw/);
    await expect(bus.ping()).rejects.toThrow();
  });

  it('stops the server at start-up with one line saying the credentials were refused, without the password', async () => {
    const server = await start('authorization { user: svc, password: "s3cret-pw" }');
    const data = scratch();
    const result = runServerToExit({
      NATURE_DATA_DIR: data,
      PORT: String(await freePort()),
      NATURE_BACKEND_TIMEOUT_MS: '5000',
      NATURE_BUS: 'nats',
      NATS_URL: server.url,
      NATS_USER: 'svc',
      NATS_PASSWORD: 'wrong-pw',
    });
    expect(result.status, result.stdout + result.stderr).toBe(1);
    const host = server.url.replace('nats://', '').replace(/\./g, '\\.');
    expect(result.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(`^start-up error: NATS at ${host} \\(NATS_URL\\) refused the credentials in NATS_USER and NATS_PASSWORD `),
      ),
    ]);
    expect(result.stdout + result.stderr).not.toContain('wrong-pw');
  });
});
