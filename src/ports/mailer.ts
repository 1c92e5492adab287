/** A message to one person: plain text, since it carries a link and a few words, never personal data of others. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/**
 * Sends mail (SMTP when NATURE_SMTP_URL is set). Resolves once the server accepted the message; rejects when it
 * did not, so a caller can show the link instead. Absent without SMTP: the dashboard shows links once, as before.
 */
export interface Mailer {
  send(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}
