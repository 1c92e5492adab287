import type { Logger } from 'pino';
import { SmtpMailer } from '../adapters/smtp/mailer.js';
import type { MailSettings } from '../settings/config.js';

/** The mailer the configuration gives: NATURE_SMTP_URL's relay, or none, and then links are shown instead. */
export function openMailer(mail: MailSettings | undefined, logger?: Logger): SmtpMailer | undefined {
  return mail === undefined ? undefined : new SmtpMailer(mail, logger);
}
