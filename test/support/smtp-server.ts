import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import type { TestPki } from './tls.js';

/** A message as the relay received it: its envelope, how it came, and its headers and text decoded. */
export interface ReceivedMail {
  /** The envelope (MAIL FROM, RCPT TO): where the relay was told to deliver it. */
  mailFrom: string;
  rcptTo: string[];
  /** Whether it came over TLS (smtps://, or after STARTTLS), and the user that logged in (none: no AUTH). */
  secure: boolean;
  user: string | undefined;
  /** Header names in lower case, values unfolded and their encoded words (RFC 2047) decoded. */
  headers: Record<string, string>;
  subject: string;
  /** The body, its transfer encoding undone, with \n line ends. */
  text: string;
  raw: string;
}

export interface SmtpServerOptions {
  /**
   * `implicit`: TLS from the first byte (an smtps:// relay); `starttls`: STARTTLS offered after EHLO. Without it, plain
   * SMTP and no STARTTLS offered. The certificate is the PKI's server one (127.0.0.1, localhost).
   */
  tls?: { mode: 'implicit' | 'starttls'; pki: TestPki };
  /** The one login it accepts (over plain SMTP too: the tests' relay is on loopback); none: it takes mail without AUTH. */
  auth?: { user: string; pass: string };
}

export interface TestSmtpServer {
  port: number;
  /** Every message received so far, oldest first. */
  received: ReceivedMail[];
  /** The first message to `address`, once it has arrived. */
  mailTo(address: string): Promise<ReceivedMail>;
  stop(): Promise<void>;
}

/** A real SMTP server (the smtp-server package) on a free loopback port, keeping what it receives. */
export async function startSmtpServer(options: SmtpServerOptions = {}): Promise<TestSmtpServer> {
  const { tls, auth } = options;
  const received: ReceivedMail[] = [];
  const waiting: (() => void)[] = [];
  const server = new SMTPServer({
    logger: false,
    secure: tls?.mode === 'implicit',
    ...(tls !== undefined && { key: readFileSync(tls.pki.server.keyFile), cert: readFileSync(tls.pki.server.certFile) }),
    // smtp-server offers STARTTLS with a certificate of its own unless told not to: only the `starttls` relay offers it.
    disabledCommands: [...(tls?.mode === 'starttls' ? [] : ['STARTTLS']), ...(auth === undefined ? ['AUTH'] : [])],
    authOptional: auth === undefined,
    allowInsecureAuth: true,
    closeTimeout: 1000,
    onAuth(login, _session, callback) {
      if (auth !== undefined && login.username === auth.user && login.password === auth.pass)
        return callback(null, { user: login.username });
      callback(new Error('Invalid username or password'));
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        const mailFrom = session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address;
        const rcptTo = session.envelope.rcptTo.map((rcpt) => rcpt.address);
        received.push({ mailFrom, rcptTo, secure: session.secure, user: session.user, ...parseMessage(raw), raw });
        for (const wake of waiting.splice(0)) wake();
        callback();
      });
    },
  });
  // A client that refuses the certificate, or gives up, ends its connection: the client's outcome, which the test checks.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.server.address() as AddressInfo;
  const find = (address: string) => received.find((mail) => mail.rcptTo.includes(address));
  return {
    port,
    received,
    async mailTo(address) {
      for (;;) {
        const mail = find(address);
        if (mail !== undefined) return mail;
        await new Promise<void>((resolve) => waiting.push(resolve));
      }
    },
    stop: () => new Promise<void>((resolve) => server.close(resolve)),
  };
}

/** Headers and text of a single-part message (what the service sends); anything else is refused, not half read. */
function parseMessage(raw: string): Pick<ReceivedMail, 'headers' | 'subject' | 'text'> {
  const split = raw.indexOf('\r\n\r\n');
  const head = raw.slice(0, split).replace(/\r\n[ \t]+/g, ' ');
  const headers = Object.fromEntries(
    head.split('\r\n').map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).trim().toLowerCase(), decodeWords(line.slice(colon + 1).trim())];
    }),
  );
  if (/^multipart\//i.test(headers['content-type'] ?? '')) throw new Error('the test SMTP server reads single-part messages only');
  const body = raw.slice(split + 4);
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase();
  const bytes =
    encoding === 'base64' ? Buffer.from(body, 'base64') : encoding === 'quoted-printable' ? quotedPrintable(body) : Buffer.from(body);
  return { headers, subject: headers.subject ?? '', text: bytes.toString('utf8').replace(/\r\n/g, '\n') };
}

/** RFC 2047 encoded words (`=?UTF-8?Q?…?=`, `=?UTF-8?B?…?=`) decoded; the space between two of them is not text. */
function decodeWords(value: string): string {
  return value
    .replace(/(\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?[^?]+\?([BbQq])\?([^?]*)\?=/g, (_, encoding: string, data: string) =>
      (encoding.toUpperCase() === 'B' ? Buffer.from(data, 'base64') : quotedPrintable(data.replace(/_/g, ' '))).toString('utf8'),
    );
}

/** Quoted-printable undone: soft line breaks removed, =XX made the byte it names. */
function quotedPrintable(text: string): Buffer {
  const joined = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let at = 0; at < joined.length; at++) {
    const hex = joined[at] === '=' && /^[0-9A-F]{2}$/i.test(joined.slice(at + 1, at + 3));
    if (hex) {
      bytes.push(Number.parseInt(joined.slice(at + 1, at + 3), 16));
      at += 2;
    } else bytes.push(...Buffer.from(joined[at]!, 'utf8'));
  }
  return Buffer.from(bytes);
}
