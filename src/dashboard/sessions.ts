import type { FastifyReply, FastifyRequest } from 'fastify';
import { type ActivityRecord, newToken, type SessionRecord, tokenHash, type UserRecord } from '../domain/accounts.js';
import type { AccountStore } from '../ports/account-store.js';

/** Ended after this long without a request, and after ABSOLUTE_MS whatever happens. */
export const IDLE_MS = 30 * 60 * 1000;
export const ABSOLUTE_MS = 12 * 3600 * 1000;
/** A session's last use is written at most this often: a page's requests need not each write. */
const TOUCH_EVERY_MS = 60 * 1000;

/**
 * The cookie lives under /dashboard only, so it never travels with an API request (the API reads keys only,
 * and would ignore it anyway). Path=/dashboard rules out the __Host- prefix, which needs Path=/.
 */
export const SESSION_COOKIE = 'nature_session';
export const COOKIE_PATH = '/dashboard';

const LOOPBACK = /^(localhost|127(\.\d{1,3}){3}|\[::1\])(:\d+)?$/i;

/**
 * Secure, unless the page is plain HTTP on this machine (npm start): a browser drops Secure cookies there. Behind
 * a proxy on loopback the Host may look local: NATURE_PUBLIC_URL on https keeps them Secure whatever the request says.
 */
export function secureCookies(request: FastifyRequest, publicUrl: string | undefined): boolean {
  if (publicUrl?.startsWith('https:')) return true;
  return !(request.protocol === 'http' && LOOPBACK.test(request.headers.host ?? ''));
}

export function cookieOptions(request: FastifyRequest) {
  return { path: COOKIE_PATH, httpOnly: true, secure: secureCookies(request, request.publicUrl), sameSite: 'strict' as const };
}

export interface SignedIn {
  session: SessionRecord;
  user: UserRecord;
}

/** The session the request's cookie names, while it is alive; its last use is moved on. */
export async function currentSession(accounts: AccountStore, request: FastifyRequest, now: Date): Promise<SignedIn | undefined> {
  const token = request.cookies[SESSION_COOKIE];
  if (token === undefined || token.length > 100) return undefined;
  const idHash = tokenHash(token);
  const session = await accounts.session(idHash);
  if (session === undefined) return undefined;
  const idle = now.getTime() - Date.parse(session.last_seen_at) >= IDLE_MS;
  if (idle || now.getTime() >= Date.parse(session.expires_at)) {
    await accounts.deleteSession(idHash);
    return undefined;
  }
  const user = await accounts.user(session.user_id);
  if (user === undefined) return undefined;
  if (now.getTime() - Date.parse(session.last_seen_at) >= TOUCH_EVERY_MS) await accounts.touchSession(idHash, now.toISOString());
  return { session, user };
}

/**
 * A new session for the user: a fresh id at every sign-in (never one the browser already had), so a cookie planted
 * before sign-in signs nobody in. The session the browser had ends.
 */
/**
 * Starts a session for `userId` (the browser's previous one ends), with `signedIn` (the entry recording the
 * sign-in) in the same write. With `spending`, only while that pending sign-in waits: undefined once it is spent.
 */
export async function startSession(
  accounts: AccountStore,
  request: FastifyRequest,
  reply: FastifyReply,
  userId: string,
  now: Date,
  { signedIn, spending }: { signedIn?: ActivityRecord; spending?: string } = {},
): Promise<SessionRecord | undefined> {
  const previous = request.cookies[SESSION_COOKIE];
  if (previous !== undefined) await accounts.deleteSession(tokenHash(previous));
  const token = newToken();
  const session: SessionRecord = {
    id_hash: tokenHash(token),
    user_id: userId,
    created_at: now.toISOString(),
    last_seen_at: now.toISOString(),
    expires_at: new Date(now.getTime() + ABSOLUTE_MS).toISOString(),
  };
  if (!(await accounts.insertSession(session, signedIn, spending))) return undefined;
  // Ended sessions are of no more use: dropping them at each sign-in keeps the store small.
  await accounts.deleteExpiredSessions(new Date(now.getTime() - IDLE_MS).toISOString(), now.toISOString());
  reply.setCookie(SESSION_COOKIE, token, { ...cookieOptions(request), maxAge: ABSOLUTE_MS / 1000 });
  return session;
}

export async function endSession(accounts: AccountStore, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const token = request.cookies[SESSION_COOKIE];
  if (token !== undefined) await accounts.deleteSession(tokenHash(token));
  reply.clearCookie(SESSION_COOKIE, cookieOptions(request));
}
