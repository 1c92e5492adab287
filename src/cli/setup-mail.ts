import { SETUP_LINK_MS } from '../domain/accounts.js';
import type { Mailer, MailMessage } from '../ports/mailer.js';
import type { Output } from './keys.js';

/** A set-up link on its way to its person: a new user's (`nature users create`), or a reset one's. */
export interface SetupLink {
  email: string;
  link: string;
  expiresAt: string;
  reset: boolean;
}

const PRODUCT = 'the Nature Profile API dashboard';

/** The message that carries the link: what it is for, how long it works, and what to do with one not expected. */
export function setupMessage({ email, link, expiresAt, reset }: SetupLink): MailMessage {
  const lasts = `It works once, for ${SETUP_LINK_MS / 3600_000} hours (until ${expiresAt}):`;
  const text = reset
    ? [
        `Your access to ${PRODUCT} was reset, and every session of yours has ended.`,
        `Choose a new password at this link. ${lasts}`,
        link,
        'Until you do, the password you had still works. If you did not expect this, tell whoever runs the service.',
      ]
    : [
        `You have been given access to ${PRODUCT}.`,
        `Choose your password at this link. ${lasts}`,
        link,
        'If you did not expect this message, ignore it: nobody signs in as you without the password this link sets.',
      ];
  return {
    to: email,
    subject: reset ? `Choose a new password for ${PRODUCT}` : `Set up your access to ${PRODUCT}`,
    text: `${text.join('\n\n')}\n`,
  };
}

/**
 * Mails the link when NATURE_SMTP_URL is set: true once the relay took it. A relay that fails is said on stderr, and
 * false returned: the caller prints the link, as without mail, so the person is never left without one.
 */
export async function mailSetupLink(mailer: Mailer | undefined, output: Output, setup: SetupLink): Promise<boolean> {
  if (mailer === undefined) return false;
  try {
    await mailer.send(setupMessage(setup));
    return true;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    output.err(`nature: mail failed, so the set-up link for ${setup.email} is printed instead: ${reason}`);
    return false;
  }
}

/** What the operator reads once the link was mailed: where it went and how long it works, never the link. */
export const mailedLine = (setup: SetupLink) =>
  `a set-up link was mailed to ${setup.email}: it works once, for ${SETUP_LINK_MS / 3600_000} hours (until ${setup.expiresAt})`;
