import type { FastifyReply, FastifyRequest } from 'fastify';
import { mustEnrol } from '../commands/two-factor.js';
import type { DashboardContext } from './context.js';
import { seeOther } from './context.js';
import { ENROLMENT_PATHS, SECURITY_PAGE } from './pages/security.js';

/** Reachable whatever is required: signing out. */
const ALWAYS = new Set(['/dashboard/sign-out']);

/**
 * The one guard of the account's requirement (a preHandler of every route): a member without two-factor sign-in
 * on, in an account that requires it, reaches only the page that sets it up; anything else leads there, changing
 * nothing. Checked on every request, so a session begun before the requirement is led there too.
 */
export function guardEnrolment(context: DashboardContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0]!;
    if (request.signedIn === undefined || ENROLMENT_PATHS.has(path) || ALWAYS.has(path)) return;
    if (await mustEnrol(context.accounts, request.signedIn.user)) return seeOther(reply, SECURITY_PAGE);
  };
}
