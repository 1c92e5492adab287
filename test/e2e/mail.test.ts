import { existsSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteAccountStore } from '../../src/adapters/sqlite/account-store.js';
import { tokenHash } from '../../src/domain/accounts.js';
import type { Mailer } from '../../src/ports/mailer.js';
import { loadMailConfig } from '../../src/settings/config.js';
import { createLogger } from '../../src/support/logger.js';
import { openMailer } from '../../src/wiring/mailer.js';
import { expectFailure, runCliInProcess } from '../support/cli.js';
import { freePort } from '../support/processes.js';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { tempDir } from '../support/temp-dir.js';
import { makeTestPki } from '../support/tls.js';

const FROM = 'Nature dashboard <dashboard@nature.example.com>';
/** A password with every character a URL must escape, and one beyond ASCII. */
const PASSWORD = 'p@ss:w/rd%é';
const credentials = (user: string, password: string) => `${encodeURIComponent(user)}:${encodeURIComponent(password)}@`;

/** A relay that takes the connection and never says a word: only a timeout ends a wait on it. */
async function silentRelay(): Promise<{ port: number; stop: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    stop: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** A logger writing into `lines`, as the server's does to stdout. */
function capturedLogger() {
  const lines: string[] = [];
  return { logger: createLogger('trace', { write: (line: string) => void lines.push(line) }), lines };
}

describe('the SMTP mailer of NATURE_SMTP_URL', () => {
  const servers: { stop: () => Promise<void> }[] = [];
  const mailers: Mailer[] = [];
  afterEach(async () => {
    for (const mailer of mailers.splice(0)) await mailer.close();
    for (const server of servers.splice(0)) await server.stop();
  });
  const relay = async (options: Parameters<typeof startSmtpServer>[0] = {}) => {
    const server = await startSmtpServer(options);
    servers.push(server);
    return server;
  };
  const mailer = (env: Record<string, string>, logger?: ReturnType<typeof capturedLogger>['logger']) => {
    const made = openMailer(loadMailConfig({ NATURE_MAIL_FROM: FROM, ...env }), logger)!;
    mailers.push(made);
    return made;
  };

  it('hands the relay the message: the envelope and To, the From of NATURE_MAIL_FROM, the subject and the text', async () => {
    const server = await relay();
    const link = `http://127.0.0.1:8080/dashboard/setup?token=${'A_b-9'.repeat(9)}`;
    const text = `Bonjour Ana,\n\nChoisissez votre mot de passe à ce lien, qui ne sert qu'une fois pendant 72 heures :\n\n${link}\n`;
    await mailer({ NATURE_SMTP_URL: `smtp://127.0.0.1:${server.port}` }).send({ to: 'ana@example.com', subject: 'Accès au tableau', text });
    const mail = await server.mailTo('ana@example.com');
    expect(mail).toMatchObject({
      mailFrom: 'dashboard@nature.example.com',
      rcptTo: ['ana@example.com'],
      secure: false,
      user: undefined,
      subject: 'Accès au tableau',
      text,
    });
    expect(mail.headers).toMatchObject({ from: FROM, to: 'ana@example.com' });
  });

  it('logs in with the user and password of the URL, percent-decoded', async () => {
    const server = await relay({ auth: { user: 'relay-user', pass: PASSWORD } });
    const url = `smtp://${credentials('relay-user', PASSWORD)}127.0.0.1:${server.port}`;
    await mailer({ NATURE_SMTP_URL: url }).send({ to: 'bob@example.com', subject: 'Hello', text: 'Hello.\n' });
    expect(await server.mailTo('bob@example.com')).toMatchObject({ user: 'relay-user', subject: 'Hello', text: 'Hello.\n' });
  });

  it('rejects a wrong password with a clear reason that names the relay, never the password or the recipient', async () => {
    const server = await relay({ auth: { user: 'relay-user', pass: PASSWORD } });
    const wrong = 'not-the-password-4711';
    const { logger, lines } = capturedLogger();
    const sent = mailer({ NATURE_SMTP_URL: `smtp://${credentials('relay-user', wrong)}127.0.0.1:${server.port}` }, logger).send({
      to: 'bob@example.com',
      subject: 'Hello',
      text: 'Hello.\n',
    });
    const error = await sent.then(
      () => expect.fail('sent with a wrong password'),
      (failure: Error) => failure,
    );
    expect(error.message).toMatch(
      new RegExp(
        `^the mail relay 127\\.0\\.0\\.1:${server.port} \\(NATURE_SMTP_URL\\) did not take the message: the login was refused \\(check the user and password in NATURE_SMTP_URL\\): .*535`,
      ),
    );
    expect(error.message).not.toContain(wrong);
    expect(lines.join('')).toMatch(/"level":40.*the login was refused/);
    expect(lines.join('')).not.toContain(wrong);
    expect(lines.join('')).not.toContain('bob@example.com');
    expect(server.received).toEqual([]);
  });

  it('rejects when the relay is down, and when it does not answer within NATURE_SMTP_TIMEOUT_MS', async () => {
    const down = await freePort();
    const message = { to: 'ana@example.com', subject: 'Hello', text: 'Hello.\n' };
    await expect(mailer({ NATURE_SMTP_URL: `smtp://127.0.0.1:${down}` }).send(message)).rejects.toThrow(
      new RegExp(`^the mail relay 127\\.0\\.0\\.1:${down} \\(NATURE_SMTP_URL\\) did not take the message: .*ECONNREFUSED`),
    );
    const silent = await silentRelay();
    servers.push(silent);
    await expect(
      mailer({ NATURE_SMTP_URL: `smtp://127.0.0.1:${silent.port}`, NATURE_SMTP_TIMEOUT_MS: '1000' }).send(message),
    ).rejects.toThrow(/did not take the message: no answer within 1000 ms \(NATURE_SMTP_TIMEOUT_MS\)/);
  });

  it('never falls back to plain text when STARTTLS is offered and fails (a certificate this process does not trust)', async () => {
    const pki = tempDir();
    try {
      const server = await relay({ tls: { mode: 'starttls', pki: makeTestPki(pki.path) } });
      await expect(
        mailer({ NATURE_SMTP_URL: `smtp://127.0.0.1:${server.port}` }).send({ to: 'ana@example.com', subject: 'Hi', text: 'Hi.\n' }),
      ).rejects.toThrow(/did not take the message: .*certificate/);
      expect(server.received).toEqual([]);
    } finally {
      pki.cleanup();
    }
  });
});

describe('nature users create and reset with NATURE_SMTP_URL', () => {
  let dir: ReturnType<typeof tempDir>;
  let data: string;
  let server: TestSmtpServer;
  beforeEach(async () => {
    dir = tempDir();
    data = join(dir.path, 'data');
    server = await startSmtpServer({ auth: { user: 'relay-user', pass: PASSWORD } });
  });
  afterEach(async () => {
    await server.stop();
    dir.cleanup();
  });
  const mailEnv = () => ({
    NATURE_SMTP_URL: `smtp://${credentials('relay-user', PASSWORD)}127.0.0.1:${server.port}`,
    NATURE_MAIL_FROM: FROM,
  });
  const nature = (args: string[], env: Record<string, string> = mailEnv()) => runCliInProcess(args, { NATURE_DATA_DIR: data, ...env });
  /** The token of the one set-up link in a text. */
  const tokenIn = (text: string) => {
    const links = [...text.matchAll(/http:\/\/127\.0\.0\.1:8080\/dashboard\/setup\?token=([\w-]{43})/g)];
    expect(links, text).toHaveLength(1);
    return links[0]![1]!;
  };
  /** The user's stored set-up token hash, read from keys.db as the server would. */
  const storedTokenHash = async () => {
    const store = new SqliteAccountStore(join(data, 'keys.db'), 'FULL');
    try {
      return (await store.users())[0]!.setup_token_hash;
    } finally {
      await store.close();
    }
  };

  it('mails a new user their set-up link, and prints where it went rather than the link', async () => {
    const created = await nature(['users', 'create', '--email', 'Ana@Example.com']);
    expect(created.status, created.stderr).toBe(0);
    expect(created.stdout).toMatch(
      /^usr_\w{26} created: ana@example\.com, owner of acct_default; a set-up link was mailed to ana@example\.com: it works once, for 72 hours \(until \d{4}-\S+Z\)\n$/,
    );
    expect(created.stderr).not.toContain('/dashboard/setup');
    const mail = await server.mailTo('ana@example.com');
    expect(mail).toMatchObject({ user: 'relay-user', subject: 'Set up your access to the Nature Profile API dashboard' });
    expect(mail.headers).toMatchObject({ from: FROM, to: 'ana@example.com' });
    expect(mail.text).toMatch(
      /^You have been given access to the Nature Profile API dashboard\.\n\nChoose your password at this link\. It works once, for 72 hours/,
    );
    expect(tokenHash(tokenIn(mail.text))).toBe(await storedTokenHash());
  });

  it('mails a reset link, which replaces the first; --json says it was mailed and shows no link', async () => {
    expect((await nature(['users', 'create', '--email', 'ana@example.com'])).status).toBe(0);
    const first = tokenIn((await server.mailTo('ana@example.com')).text);
    const reset = await nature(['users', 'reset', '--email', 'ana@example.com', '--json']);
    expect(reset.status, reset.stderr).toBe(0);
    expect(JSON.parse(reset.stdout)).toMatchObject({ email: 'ana@example.com', setup_link: null, setup_link_mailed: true });
    expect(server.received).toHaveLength(2);
    const mail = server.received[1]!;
    expect(mail.subject).toBe('Choose a new password for the Nature Profile API dashboard');
    expect(mail.text).toMatch(/^Your access to the Nature Profile API dashboard was reset, and every session of yours has ended\./);
    const second = tokenIn(mail.text);
    expect(second).not.toBe(first);
    expect(await storedTokenHash()).toBe(tokenHash(second));
  });

  it('prints the link when the relay is down, saying that mail failed; the user is created all the same', async () => {
    const down = await freePort();
    const env = { NATURE_SMTP_URL: `smtp://127.0.0.1:${down}`, NATURE_MAIL_FROM: FROM };
    const created = await nature(['users', 'create', '--email', 'ana@example.com'], env);
    expect(created.status, created.stderr).toBe(0);
    const token = tokenIn(created.stdout);
    expect(created.stdout).toBe(`http://127.0.0.1:8080/dashboard/setup?token=${token}\n`);
    expect(created.stderr).toMatch(
      new RegExp(
        `^nature: mail failed, so the set-up link for ana@example\\.com is printed instead: the mail relay 127\\.0\\.0\\.1:${down} \\(NATURE_SMTP_URL\\) did not take the message: connect ECONNREFUSED`,
        'm',
      ),
    );
    expect(created.stderr).toMatch(/send it to ana@example\.com yourself/);
    expect(await storedTokenHash()).toBe(tokenHash(token));
    const reset = await nature(['users', 'reset', '--email', 'ana@example.com', '--json'], env);
    expect(reset.status, reset.stderr).toBe(0);
    expect(JSON.parse(reset.stdout)).toMatchObject({ setup_link: expect.stringContaining('?token='), setup_link_mailed: false });
    expect(reset.stderr).toMatch(/^nature: mail failed, so the set-up link for ana@example\.com is printed instead: /);
  });

  it('prints the link as before without NATURE_SMTP_URL, and sends nothing', async () => {
    const created = await nature(['users', 'create', '--email', 'ana@example.com', '--json'], {});
    expect(JSON.parse(created.stdout)).toMatchObject({ setup_link: expect.stringContaining('?token='), setup_link_mailed: false });
    expect(server.received).toEqual([]);
  });

  it('refuses a bad mail setting in one line, without the password, before anyone is created', async () => {
    expectFailure(
      await nature(['users', 'create', '--email', 'ana@example.com'], {
        NATURE_SMTP_URL: 'smtp://relay-user:s3cret-9@relay.example.com:25/inbox',
        NATURE_MAIL_FROM: FROM,
      }),
      1,
      /^nature: configuration error: NATURE_SMTP_URL="smtp:\/\/relay\.example\.com:25\/inbox" must be smtp:\/\/\[user:password@\]host\[:port\]/,
    );
    expectFailure(
      await nature(['users', 'create', '--email', 'ana@example.com'], { NATURE_SMTP_URL: 'smtp:relay-user:s3cret-9@relay.example.com' }),
      1,
      /^nature: configuration error: NATURE_SMTP_URL=\(hidden\) must be/,
    );
    expectFailure(
      await nature(['users', 'create', '--email', 'ana@example.com'], { NATURE_SMTP_URL: 'smtps://relay.example.com' }),
      1,
      /^nature: configuration error: NATURE_MAIL_FROM is required when NATURE_SMTP_URL is set$/,
    );
    expectFailure(
      await nature(['users', 'reset', '--email', 'ana@example.com'], {
        NATURE_SMTP_URL: 'smtps://relay.example.com',
        NATURE_MAIL_FROM: 'nobody',
      }),
      1,
      /^nature: configuration error: NATURE_MAIL_FROM="nobody" must be the address mail is sent from/,
    );
    expect(existsSync(data)).toBe(false);
  });
});
