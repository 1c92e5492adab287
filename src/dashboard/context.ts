import type { FastifyReply, FastifyRequest } from 'fastify';
import { emailOf } from '../commands/accounts.js';
import type { Actor } from '../domain/accounts.js';
import type { Environment } from '../domain/api-keys.js';
import type { RateLimitOverride } from '../domain/plans.js';
import type { CareersCatalogue } from '../http/routes/careers.js';
import type { AccountStore } from '../ports/account-store.js';
import type { KeyStore } from '../ports/key-store.js';
import type { Mailer } from '../ports/mailer.js';
import type { Environments } from '../wiring/environments.js';
import { type Html, html } from './html.js';
import type { Viewer } from './layout.js';
import { cookieOptions, type SignedIn } from './sessions.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The dashboard's signed-in person, set before any dashboard handler runs; undefined when signed out. */
    signedIn: SignedIn | undefined;
    /** NATURE_PUBLIC_URL, for the dashboard's cookies (sessions.ts). */
    publicUrl: string | undefined;
  }
}

/** What every dashboard page works with: the same stores as the API and the operator's command line. */
export interface DashboardContext {
  accounts: AccountStore;
  keys: KeyStore;
  envs: Environments;
  clock: () => Date;
  /** NATURE_PUBLIC_URL: on https, cookies are Secure whatever a proxy's request looks like. */
  publicUrl?: string | undefined;
  /** Whether an error means a backend does not answer now (environments.ts's backendUnavailable): a 503 page. */
  unavailable: (error: unknown) => boolean;
  /** The careers catalogue the API serves (the app's own), whose version the keys page shows; none: not imported. */
  careers?: CareersCatalogue;
  /** NATURE_SMTP_URL's relay, for invitations and notices; none, or a send that rejects: the link is shown once instead. */
  mailer?: Mailer | undefined;
  /** NATURE_RATE_LIMIT_*, which replace the plan's figures: the usage page shows the limit in force. */
  rateLimit?: RateLimitOverride;
}

/** The environments as the dashboard's addresses name them. */
export const environmentOfSegment = { sandbox: 'test', production: 'live' } as const satisfies Record<string, Environment>;
export type EnvironmentSegment = keyof typeof environmentOfSegment;

/** The signed-in person as a page shows them, with a CSRF token bound to their session for the page's forms. */
export async function viewerOf(context: DashboardContext, request: FastifyRequest, reply: FastifyReply): Promise<Viewer> {
  const signedIn = request.signedIn!;
  return {
    email: await emailOf({ accounts: context.accounts, dataKeys: context.envs.test.dataKeys }, signedIn.user),
    role: signedIn.user.role,
    csrf: csrfToken(request, reply),
  };
}

/** What binds a CSRF token to the browser's session (plugin.ts checks POSTs against the same). */
export const csrfUserInfo = (request: FastifyRequest) => request.signedIn?.session.id_hash ?? 'signed-out';

/** A token for the page's forms, valid only with this browser's CSRF cookie and its session. */
export function csrfToken(request: FastifyRequest, reply: FastifyReply): string {
  return reply.generateCsrf({ ...cookieOptions(request), userInfo: csrfUserInfo(request) });
}

export const actorOf = (request: FastifyRequest): Actor => ({ type: 'user', user_id: request.signedIn!.user.id });

/** A page, never cached: each one shows what stands now, and some show a secret once. */
export function sendPage(reply: FastifyReply, page: Html, status = 200): FastifyReply {
  return reply.code(status).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(page.text);
}

/** After a change, the page that shows it (303: the browser follows with a GET, so a reload does not repeat the change). */
export const seeOther = (reply: FastifyReply, location: string) => reply.code(303).header('location', location).send();

/** A form field as text: absent, repeated or not text, it reads as empty. */
export function field(body: unknown, name: string): string {
  const value = (body as Record<string, unknown> | null | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

/**
 * What a change that redirected says on the page it lands on, by a code in the address (never text from it):
 * a reload of that page shows the page again and repeats nothing.
 */
const notices = {
  saved: 'Saved.',
  enabled: 'The endpoint is enabled: it receives the events that happen from now on.',
  disabled: 'The endpoint is disabled: it receives nothing until it is enabled again.',
  test_sent: 'A test event is queued: its delivery appears below once it is sent (reload the page).',
  redelivered: 'The event is queued again: its attempt appears in the deliveries once it is sent.',
  revoked: 'The key is revoked: every request with it gets 401 from now on.',
  deleted: 'The endpoint is deleted: it receives nothing more, and its signing secret no longer signs.',
  applied: 'Your application is sent.',
  revoked_invitation: 'The invitation is revoked: its link no longer works.',
  removed: 'The member is removed: their sessions have ended and they can no longer sign in.',
  joined: 'Welcome: you are a member of this account now.',
} as const;
export type NoticeCode = keyof typeof notices;

export function noticeOf(request: FastifyRequest) {
  const code = field(request.query, 'done');
  return Object.hasOwn(notices, code) ? html`<div class="notice success" role="status"><p>${notices[code as NoticeCode]}</p></div>` : '';
}

export const queryValue = (request: FastifyRequest, name: string) => field(request.query, name);
