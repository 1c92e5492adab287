import type { FastifyRequest } from 'fastify';
import type { Role } from '../domain/accounts.js';
import { powersOf } from '../domain/permissions.js';
import type { Mailer, MailMessage } from '../ports/mailer.js';
import type { DashboardContext } from './context.js';

/** Where the dashboard is reached, for a link in a mail: NATURE_PUBLIC_URL, else the address the request came to. */
export const dashboardBase = (context: DashboardContext, request: FastifyRequest) =>
  context.publicUrl?.replace(/\/+$/, '') ?? `${request.protocol}://${request.host}`;

export const invitationLink = (base: string, token: string) => `${base}/dashboard/invitation?token=${encodeURIComponent(token)}`;

const rolePowers = (role: Role) => {
  const powers = powersOf(role);
  return powers.length === 0 ? 'read its pages' : `read its pages, ${powers.join(', ')}`;
};

export function invitationMail(to: string, link: string, role: Role, expiresAt: string, inviter: string): MailMessage {
  return {
    to,
    subject: 'You are invited to the Nature Profile API dashboard',
    text: `${inviter} invites you to join their account on the Nature Profile API dashboard as ${role === 'admin' ? 'an' : 'a'} ${role}: you may ${rolePowers(role)}.

Choose your password here (the link works once, until ${expiresAt}):
${link}

If you did not expect this, ignore this message: nothing happens unless the link is opened and a password chosen.
`,
  };
}

export function roleChangedMail(to: string, from: Role, role: Role, base: string, by: string): MailMessage {
  return {
    to,
    subject: 'Your role on the Nature Profile API dashboard changed',
    text: `${by} changed your role on the Nature Profile API dashboard from ${from} to ${role}: you may now ${rolePowers(role)}.

Your sessions have ended: sign in again at ${base}/dashboard/sign-in
`,
  };
}

/** Sends the message when there is a mailer; whether it was taken (false without a mailer, or when the server refused it). */
export async function sendIfMailer(mailer: Mailer | undefined, message: MailMessage): Promise<boolean> {
  if (mailer === undefined) return false;
  return mailer.send(message).then(
    () => true,
    () => false,
  );
}
