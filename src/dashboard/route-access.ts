import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Role } from '../domain/accounts.js';
import { can, type Permission, permissions, rolesWith } from '../domain/permissions.js';
import { type DashboardContext, sendPage, viewerOf } from './context.js';
import { html } from './html.js';
import { page } from './layout.js';

/** Who may use a route: anyone (signed out too), any signed-in member, or the roles with a permission of the table. */
export type RouteAccess = 'open' | 'member' | Permission;

/**
 * Every route of the dashboard, as registered (method and path), with who may use it: the one place a route's
 * permission is said. A form's page (a confirmation, a member's page) needs the permission its form does.
 * plugin.ts refuses to register a route missing here, so none is ever left unguarded.
 */
export const routeAccess: Readonly<Record<string, RouteAccess>> = {
  'GET /dashboard': 'member',
  'GET /dashboard/assets/dashboard.css': 'open',
  'GET /dashboard/assets/dashboard.js': 'open',
  'GET /dashboard/sign-in': 'open',
  'POST /dashboard/sign-in': 'open',
  'GET /dashboard/sign-in/two-factor': 'open',
  'POST /dashboard/sign-in/two-factor': 'open',
  'POST /dashboard/sign-out': 'member',
  'GET /dashboard/setup': 'open',
  'POST /dashboard/setup': 'open',
  'GET /dashboard/invitation': 'open',
  'POST /dashboard/invitation': 'open',
  'GET /dashboard/keys': 'read',
  'POST /dashboard/keys': 'keys',
  'GET /dashboard/keys/:id/rotate': 'keys',
  'POST /dashboard/keys/:id/rotate': 'keys',
  'GET /dashboard/keys/:id/revoke': 'keys',
  'POST /dashboard/keys/:id/revoke': 'keys',
  'GET /dashboard/production': 'read',
  'POST /dashboard/production': 'production',
  'GET /dashboard/members': 'read',
  'POST /dashboard/members': 'members',
  'POST /dashboard/members/invitations/:id/revoke': 'members',
  'GET /dashboard/members/:id': 'members',
  'POST /dashboard/members/:id/role': 'members',
  'POST /dashboard/members/:id/remove': 'members',
  'POST /dashboard/members/:id/transfer': 'ownership',
  'GET /dashboard/activity': 'read',
  'GET /dashboard/security': 'member',
  'POST /dashboard/security/two-factor/start': 'member',
  'POST /dashboard/security/two-factor/confirm': 'member',
  'POST /dashboard/security/recovery-codes': 'member',
  'POST /dashboard/security/two-factor/disable': 'member',
  'POST /dashboard/security/requirement': 'ownership',
  'GET /dashboard/:segment/webhooks': 'read',
  'POST /dashboard/:segment/webhooks': 'webhooks',
  'GET /dashboard/:segment/webhooks/:id': 'read',
  'POST /dashboard/:segment/webhooks/:id': 'webhooks',
  'POST /dashboard/:segment/webhooks/:id/status': 'webhooks',
  'POST /dashboard/:segment/webhooks/:id/rotate': 'webhooks',
  'POST /dashboard/:segment/webhooks/:id/test': 'webhooks',
  'POST /dashboard/:segment/webhooks/:id/delete': 'webhooks',
  'POST /dashboard/:segment/webhooks/:id/replay': 'events',
  'GET /dashboard/:segment/events': 'read',
  'GET /dashboard/:segment/events/:id': 'read',
  'POST /dashboard/:segment/events/:id/redeliver': 'events',
  'GET /dashboard/:segment/requests': 'read',
  'GET /dashboard/:segment/requests/:id': 'read',
  'GET /dashboard/:segment/usage': 'read',
};

/** HEAD is answered as GET (fastify adds a HEAD route beside each GET one), so it needs what GET needs. */
const keyOf = (method: string, url: string) => `${method === 'HEAD' ? 'GET' : method} ${url}`;

/** Who may use the route; throws for a route missing from the table (at registration, so the server never starts with one). */
export function accessOf(method: string, url: string): RouteAccess {
  const access = routeAccess[keyOf(method, url)];
  if (access === undefined) throw new Error(`the dashboard route ${method} ${url} has no entry in route-access.ts: say who may use it`);
  return access;
}

/** Whether a signed-in member with `role` may use a route of this access. */
export const allows = (access: RouteAccess, role: Role) => access === 'open' || access === 'member' || can(role, access);

/** The route the request matched, and who may use it; undefined when it matched none (a 404). */
export function accessOfRequest(request: FastifyRequest): RouteAccess | undefined {
  const url = request.routeOptions.url;
  return url === undefined ? undefined : accessOf(request.method, url);
}

/** The 403 page for a member whose role lacks the permission: what it is, who has it, and who can change their role. */
export async function refuseForRole(context: DashboardContext, request: FastifyRequest, reply: FastifyReply, permission: Permission) {
  const viewer = await viewerOf(context, request, reply);
  const body = html`<div class="notice error" role="alert"><p>This is for members who may ${permissions[permission].does}: ${rolesWith(permission)}. Your role is ${viewer.role}, so nothing was shown or changed.</p></div>
<p>An owner or admin can change your role: they are listed on the <a href="/dashboard/members">Members page</a>. <a href="/dashboard/keys">Back to the dashboard</a></p>`;
  return sendPage(reply, page('Not open to your role', body, viewer), 403);
}
