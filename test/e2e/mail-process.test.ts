import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort, runServerToExit, type ServerProcess, spawnFromSource, startServer, waitForOutput } from '../support/processes.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { tempDir } from '../support/temp-dir.js';
import { makeTestPki, type TestPki } from '../support/tls.js';

const FROM = 'dashboard@nature.example.com';
const USER = 'relay-user';
const PASSWORD = 'Relay-Secret-7f3k';
const WRONG = 'Wrong-Secret-9q2z';

/**
 * The real `nature` process, run to its end without blocking this one (the relay answers from here): its status and
 * what it printed, both streams together.
 */
async function natureProcess(args: string[], env: Record<string, string>) {
  const run = spawnFromSource(['src/cli/main.ts', ...args], env);
  return { status: await run.exited, output: run.output() };
}

describe('mail over TLS, from real processes', () => {
  let dir: ReturnType<typeof tempDir>;
  let pki: TestPki;
  const relays: TestSmtpServer[] = [];
  beforeAll(() => {
    dir = tempDir();
    pki = makeTestPki(dir.path);
  });
  afterAll(async () => {
    for (const relay of relays.splice(0)) await relay.stop();
    dir.cleanup();
  });
  const relay = async (mode: 'implicit' | 'starttls') => {
    const server = await startSmtpServer({ tls: { mode, pki }, auth: { user: USER, pass: PASSWORD } });
    relays.push(server);
    return server;
  };
  /** The relay's certificate is the test CA's: trusted the way an operator trusts a private CA, with NODE_EXTRA_CA_CERTS. */
  const env = (url: string, data: string, trusted = true) => ({
    NATURE_DATA_DIR: join(dir.path, data),
    NATURE_SMTP_URL: url,
    NATURE_MAIL_FROM: FROM,
    ...(trusted && { NODE_EXTRA_CA_CERTS: pki.caFile }),
  });

  it.each([
    ['smtps:// (TLS from the first byte)', 'implicit', 'smtps'],
    ['smtp:// (STARTTLS, which the relay offers)', 'starttls', 'smtp'],
  ] as const)('%s: nature users create logs in and mails the link over TLS', async (_case, mode, scheme) => {
    const server = await relay(mode);
    const result = await natureProcess(
      ['users', 'create', '--email', `ana-${mode}@example.com`],
      env(`${scheme}://${USER}:${PASSWORD}@127.0.0.1:${server.port}`, mode),
    );
    expect(result.status, result.output).toBe(0);
    expect(result.output).toMatch(new RegExp(`a set-up link was mailed to ana-${mode}@example\\.com: it works once, for 72 hours`));
    expect(result.output).not.toContain('/dashboard/setup');
    const mail = await server.mailTo(`ana-${mode}@example.com`);
    expect(mail).toMatchObject({ secure: true, user: USER, subject: 'Set up your access to the Nature Profile API dashboard' });
    expect(mail.text).toMatch(/\/dashboard\/setup\?token=[\w-]{43}\n/);
  });

  it('refuses a relay whose certificate is not trusted, and prints the link instead', async () => {
    const server = await relay('implicit');
    const result = await natureProcess(
      ['users', 'create', '--email', 'bob@example.com'],
      env(`smtps://${USER}:${PASSWORD}@127.0.0.1:${server.port}`, 'untrusted', false),
    );
    expect(result.status, result.output).toBe(0);
    expect(result.output).toMatch(/^nature: mail failed, so the set-up link for bob@example\.com is printed instead: .*certificate/m);
    expect(result.output).toMatch(/^http:\/\/127\.0\.0\.1:8080\/dashboard\/setup\?token=[\w-]{43}$/m);
    expect(result.output).not.toContain(PASSWORD);
    expect(server.received).toEqual([]);
  });

  describe('the server', () => {
    const servers: ServerProcess[] = [];
    afterAll(async () => {
      for (const server of servers.splice(0)) {
        server.process.kill('SIGKILL');
        await server.exited;
      }
    });

    it('refuses a bad NATURE_SMTP_URL at start-up in one line, without its password', async () => {
      const port = String(await freePort());
      const result = runServerToExit({
        PORT: port,
        NATURE_DATA_DIR: join(dir.path, 'refused'),
        NATURE_SMTP_URL: `smtps://${USER}:${PASSWORD}@relay.example.com?from=${FROM}`,
        NATURE_MAIL_FROM: FROM,
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toBe(
        // An @ left once the credentials are cut (here in the query) could be part of a password: the value is hidden whole.
        `configuration error: NATURE_SMTP_URL=(hidden) must be smtp://[user:password@]host[:port] (STARTTLS when the relay offers it) or smtps://… (TLS from the start), with no path or query; percent-encode @ : / in the password\n`,
      );
      expect(result.stdout).toBe('');
      const unsent = runServerToExit({
        PORT: port,
        NATURE_DATA_DIR: join(dir.path, 'refused'),
        NATURE_SMTP_URL: 'smtp://relay.example.com',
      });
      expect(unsent.stderr).toBe('configuration error: NATURE_MAIL_FROM is required when NATURE_SMTP_URL is set\n');
    });

    it('checks the relay once it listens: ready with the right password, a clear warning with a wrong one; never logs either', async () => {
      const server = await relay('starttls');
      const start = async (password: string, data: string) => {
        const started = await startServer({ ...env(`smtp://${USER}:${password}@127.0.0.1:${server.port}`, data), LOG_LEVEL: 'trace' });
        servers.push(started);
        return started;
      };
      const good = await start(PASSWORD, 'server-good');
      await waitForOutput(good, /the mail relay 127\.0\.0\.1:\d+ \(NATURE_SMTP_URL\) is ready/);
      const bad = await start(WRONG, 'server-bad');
      await waitForOutput(
        bad,
        /"level":40,.*the mail relay 127\.0\.0\.1:\d+ \(NATURE_SMTP_URL\) did not accept the connection: the login was refused \(check the user and password in NATURE_SMTP_URL\)/,
      );
      // A server with a mailer stops as cleanly as one without.
      for (const stopping of [good, bad]) {
        stopping.process.kill('SIGTERM');
        expect(await stopping.exited).toBe(0);
        expect(stopping.output()).not.toContain(PASSWORD);
        expect(stopping.output()).not.toContain(WRONG);
      }
    });
  });
});
