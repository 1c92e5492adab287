import nodemailer from 'nodemailer';
import type { Logger } from 'pino';
import type { Mailer, MailMessage } from '../../ports/mailer.js';
import type { MailSettings, SmtpRelay } from '../../settings/config.js';

/** Why a message was not sent, in one line that names the relay and never its password. */
export class MailError extends Error {
  override readonly name = 'MailError';
}

/** The relay as a message names it: host and port, never the credentials. */
export const relayName = (relay: SmtpRelay) => `${relay.host.includes(':') ? `[${relay.host}]` : relay.host}:${relay.port}`;

/** Every wait bounded by the timeout; nodemailer's logger off (at debug it would log the conversation, AUTH included). */
function transportOf({ relay, from, timeoutMs }: MailSettings) {
  return nodemailer.createTransport(
    {
      host: relay.host,
      port: relay.port,
      secure: relay.secure,
      ...(relay.auth !== undefined && { auth: relay.auth }),
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      dnsTimeout: timeoutMs,
      logger: false,
      debug: false,
      // Messages are text the service writes: no attachment or URL is ever read for them.
      disableFileAccess: true,
      disableUrlAccess: true,
    },
    { from },
  );
}

/**
 * The mailer of NATURE_SMTP_URL, through nodemailer: one connection per message (an idle pooled one would be dropped
 * by most relays between the rare messages a dashboard sends), TLS from the start on smtps://, STARTTLS when the
 * relay offers it on smtp://, the relay's certificate checked against the system's CAs (and NODE_EXTRA_CA_CERTS). A failure is logged
 * (when `logger` is given) without the recipient, personal data, and rejects so that the caller shows the link instead.
 */
export class SmtpMailer implements Mailer {
  private readonly transport: ReturnType<typeof transportOf>;

  constructor(
    private readonly settings: MailSettings,
    private readonly logger?: Logger,
  ) {
    this.transport = transportOf(settings);
  }

  async send(message: MailMessage): Promise<void> {
    try {
      await this.transport.sendMail({ to: message.to, subject: message.subject, text: message.text });
    } catch (error) {
      throw this.failed('did not take the message', error);
    }
  }

  /**
   * At start-up: connects and logs in without sending, and logs how that went, so that a wrong password is known before
   * the first message. Never rejects: without mail, links are shown.
   */
  async check(): Promise<void> {
    try {
      await this.transport.verify();
      const relay = relayName(this.settings.relay);
      this.logger?.info({ relay }, `the mail relay ${relay} (NATURE_SMTP_URL) is ready: invitations and notices are mailed`);
    } catch (error) {
      this.failed('did not accept the connection', error);
    }
  }

  async close(): Promise<void> {
    this.transport.close();
  }

  private failed(what: string, error: unknown): MailError {
    const relay = relayName(this.settings.relay);
    const failure = new MailError(`the mail relay ${relay} (NATURE_SMTP_URL) ${what}: ${this.reason(error)}`);
    this.logger?.warn({ relay }, failure.message);
    return failure;
  }

  /** nodemailer's reason in words an operator acts on, with the password scrubbed out whatever the relay echoed. */
  private reason(error: unknown): string {
    const { code, message } = error as { code?: string; message?: string };
    const said =
      code === 'ETIMEDOUT'
        ? `no answer within ${this.settings.timeoutMs} ms (NATURE_SMTP_TIMEOUT_MS): ${message}`
        : code === 'EAUTH'
          ? `the login was refused (check the user and password in NATURE_SMTP_URL): ${message}`
          : String(message ?? error);
    const password = this.settings.relay.auth?.pass;
    return password === undefined || password === '' ? said : said.split(password).join('***');
  }
}
