import type { FastifyReply, FastifyRequest } from 'fastify';
import { newToken, tokenHash, type UserRecord } from '../domain/accounts.js';
import { PENDING_SIGN_IN_MS, type PendingSignInRecord } from '../domain/two-factor.js';
import type { AccountStore } from '../ports/account-store.js';
import { seeOther } from './context.js';
import { cookieOptions } from './sessions.js';

/**
 * A sign-in whose password was right, waiting for its second factor. Its own cookie, never the session's: no page
 * but the code's takes it (plugin.ts knows only sessions), and only a hash of it is stored.
 */
export const PENDING_COOKIE = 'nature_pending_sign_in';
export const CODE_PAGE = '/dashboard/sign-in/two-factor';

/** Keeps the sign-in waiting for its code, and sends the browser to the page that asks for it (then on to `next`). */
export async function askForCode(
  accounts: AccountStore,
  request: FastifyRequest,
  reply: FastifyReply,
  user: UserRecord,
  next: string,
  now: Date,
) {
  const token = newToken();
  await accounts.twoFactor.insertPending({
    id_hash: tokenHash(token),
    user_id: user.id,
    created_at: now.toISOString(),
    expires_at: new Date(now.getTime() + PENDING_SIGN_IN_MS).toISOString(),
  });
  reply.setCookie(PENDING_COOKIE, token, { ...cookieOptions(request), maxAge: PENDING_SIGN_IN_MS / 1000 });
  return seeOther(reply, `${CODE_PAGE}?next=${encodeURIComponent(next)}`);
}

/** The waiting sign-in the request's cookie names, while it has not ended. */
export async function pendingOf(accounts: AccountStore, request: FastifyRequest, now: Date): Promise<PendingSignInRecord | undefined> {
  const token = request.cookies[PENDING_COOKIE];
  if (token === undefined || token.length > 100) return undefined;
  const pending = await accounts.twoFactor.pending(tokenHash(token));
  return pending !== undefined && Date.parse(pending.expires_at) > now.getTime() ? pending : undefined;
}

export const forgetPending = (request: FastifyRequest, reply: FastifyReply) => reply.clearCookie(PENDING_COOKIE, cookieOptions(request));
