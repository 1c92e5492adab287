import { createHmac } from 'node:crypto';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { DomainError } from '../domain/errors.js';
import type { Permission } from '../domain/permissions.js';
import { toProblem } from '../http/errors.js';
import { ProblemError, problemCodes } from '../http/problem.js';
import { sendAsset } from '../http/static-asset.js';
import { redactSecrets } from '../support/secret-redaction.js';
import { DASHBOARD_POLICY, dashboardScript, dashboardStylesheet } from './assets.js';
import { csrfUserInfo, type DashboardContext, seeOther, sendPage } from './context.js';
import { guardEnrolment } from './enrolment-guard.js';
import { FormOutcomes } from './form-once.js';
import { html } from './html.js';
import { page } from './layout.js';
import { registerActivityPage } from './pages/activity.js';
import { registerApplicationPages } from './pages/application.js';
import { registerEventPages } from './pages/events.js';
import { registerInvitationPages } from './pages/invitation.js';
import { registerKeyPages } from './pages/keys.js';
import { registerMemberPages } from './pages/members.js';
import { registerRequestPages } from './pages/requests.js';
import { registerSecurityPage } from './pages/security.js';
import { registerUsagePage } from './pages/usage.js';
import { registerWebhookPages } from './pages/webhooks.js';
import { guardProduction } from './production-access.js';
import { accessOf, accessOfRequest, allows, refuseForRole } from './route-access.js';
import { currentSession } from './sessions.js';
import { registerSignIn } from './sign-in.js';
import { registerTwoFactorSignIn } from './two-factor-sign-in.js';

const CSRF_REFUSALS = new Set(['FST_CSRF_INVALID_TOKEN', 'FST_CSRF_MISSING_SECRET']);

/**
 * An error as a page: its status from the API's own mapping (http/errors.ts), and words for a person. What the
 * API's rules refused (an endpoint that is not there, an erased subject) is said in the API's words; the rest,
 * written for a program calling the API, is said plainly.
 */
function errorPage(error: FastifyError, request: FastifyRequest, unavailable: (error: unknown) => boolean) {
  // The CSRF plugin's own 403, which the API's mapping would take for a broken body.
  if (CSRF_REFUSALS.has(error.code))
    return {
      status: 403,
      message:
        'This form has expired or was not sent from this dashboard, so nothing was changed. Go back, reload the page and send it again.',
    };
  const problem = toProblem(error, request, unavailable);
  const status = problemCodes[problem.code].status;
  const ruled =
    error instanceof ProblemError || error instanceof DomainError || problem.code === 'subject_erased' || problem.code === 'not_found';
  const message = ruled
    ? problem.detail
    : status === 503
      ? 'A backend of the service does not answer right now. Reload the page in a moment to see what stands.'
      : status < 500
        ? 'The request was not understood, so nothing was changed. Go back and try again.'
        : 'Something went wrong on our side, so the change may not have been made. Reload the page to see what stands.';
  return { status, message };
}

/**
 * Every request's first step: the session, then who may use the route (route-access.ts, the permission table),
 * before anything is read or parsed.
 */
function guardAccess(context: DashboardContext) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    reply.header('content-security-policy', DASHBOARD_POLICY);
    request.publicUrl = context.publicUrl;
    const path = request.url.split('?')[0]!;
    // The stylesheet and script are the same for everyone: no session lookup for them.
    if (path.startsWith('/dashboard/assets/')) return;
    request.signedIn = await currentSession(context.accounts, request, context.clock());
    const access = accessOfRequest(request);
    if (request.signedIn === undefined && access !== 'open') {
      // Nothing changes for a request without a live session; a page asked for comes back after sign-in, less
      // any key pasted into its address (redacted as the API's log redacts it).
      const next = request.method === 'GET' ? `?next=${encodeURIComponent(redactSecrets(request.url))}` : '';
      return seeOther(reply, `/dashboard/sign-in${next}`);
    }
    // The role's permission, from the one table, before anything is read or parsed.
    if (request.signedIn !== undefined && access !== undefined && !allows(access, request.signedIn.user.role))
      return refuseForRole(context, request, reply, access as Permission);
  };
}

/** A route of the dashboard as registered, with its full path (`/dashboard/:segment/webhooks`). */
export interface DashboardRoute {
  method: string;
  url: string;
}

/**
 * The developer dashboard under /dashboard: server-rendered pages that work without script, signed in with
 * server-side sessions, every POST checked for a CSRF token bound to the session. Its own scope: the API's
 * JSON-only body rule, problem+json errors and API-key checks do not apply here, and nothing here reaches the API's routes.
 * Answers its routes, so that a test can walk every one of them.
 */
export async function registerDashboard(app: FastifyInstance, context: DashboardContext): Promise<DashboardRoute[]> {
  const routes: DashboardRoute[] = [];
  const pages = { ...context, forms: new FormOutcomes(context.clock) };
  // A key of the deployment for the CSRF tokens' HMAC, the same on every replica, never stored in plain text.
  const hmacKey = createHmac('sha256', await context.envs.test.dataKeys.environmentSecret())
    .update('nature-dashboard-csrf')
    .digest('base64');
  await app.register(
    async (scope) => {
      // Pages for people, not operations of the API: kept out of the OpenAPI document.
      scope.addHook('onRoute', (route) => {
        route.schema = { ...route.schema, hide: true };
        for (const method of [route.method].flat()) {
          accessOf(method, route.url);
          routes.push({ method, url: route.url });
        }
      });
      await scope.register(cookie);
      await scope.register(formbody, { bodyLimit: 16 * 1024 });
      await scope.register(csrf, {
        sessionPlugin: '@fastify/cookie',
        cookieKey: 'nature_csrf',
        // Bound to the session: a token from another session (or a planted cookie) does not pass.
        getUserInfo: csrfUserInfo,
        csrfOpts: { userInfo: true, hmacKey },
      });
      scope.decorateRequest('signedIn', undefined);
      scope.decorateRequest('publicUrl', undefined);
      scope.addHook('onRequest', guardAccess(context));
      // Every state-changing request is a POST, and every POST carries the token of a page of this dashboard.
      scope.addHook('preHandler', (request, reply, done) => {
        if (request.method === 'POST') return scope.csrfProtection(request, reply, done);
        done();
      });
      scope.addHook('preHandler', guardEnrolment(context));
      scope.addHook('preHandler', guardProduction(context));
      scope.setErrorHandler(async (error: FastifyError, request, reply) => {
        const { status, message } = errorPage(error, request, context.unavailable);
        const body = html`<div class="notice error" role="alert"><p>${message}</p></div><p><a href="/dashboard/keys">Back to the dashboard</a></p>`;
        return sendPage(reply, page(status === 403 ? 'Refused' : 'Something went wrong', body), status);
      });
      scope.setNotFoundHandler(async (_request, reply) =>
        sendPage(reply, page('Not found', html`<p>There is no such page. <a href="/dashboard/keys">Back to the dashboard</a></p>`), 404),
      );

      scope.get('/assets/dashboard.css', async (request, reply) => sendAsset(request, reply, dashboardStylesheet));
      scope.get('/assets/dashboard.js', async (request, reply) => sendAsset(request, reply, dashboardScript));
      scope.get('', async (_request, reply) => seeOther(reply, '/dashboard/keys'));
      registerSignIn(scope, context);
      registerTwoFactorSignIn(scope, context);
      registerKeyPages(scope, pages);
      registerApplicationPages(scope, pages);
      registerWebhookPages(scope, pages);
      registerEventPages(scope, pages);
      registerRequestPages(scope, context);
      registerUsagePage(scope, context);
      registerActivityPage(scope, context);
      registerMemberPages(scope, pages);
      registerInvitationPages(scope, context);
      registerSecurityPage(scope, pages);
    },
    { prefix: '/dashboard' },
  );
  return routes;
}
