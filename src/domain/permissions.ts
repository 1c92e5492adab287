import type { Role } from './accounts.js';

/**
 * What each role may do (specification v1.1, "Team and plans"): the one table that the dashboard's route guard,
 * its pages (which forms they show), the `nature` command and the tests all read. `does` finishes "members who
 * may …", so a refusal can say why. Every member reads every page; a viewer has nothing more, so sees no secret
 * (a secret is only ever shown once, by the form that makes it) and changes nothing.
 */
export const permissions = {
  read: { roles: ['owner', 'admin', 'developer', 'viewer'], does: "read the dashboard's pages" },
  keys: { roles: ['owner', 'admin', 'developer'], does: 'create, rotate and revoke API keys' },
  webhooks: { roles: ['owner', 'admin', 'developer'], does: 'add, change, test and delete webhook endpoints' },
  events: { roles: ['owner', 'admin', 'developer'], does: 'send events to webhook endpoints again' },
  production: { roles: ['owner', 'admin'], does: 'apply for production access' },
  members: { roles: ['owner', 'admin'], does: 'invite members, change their roles and remove them' },
  ownership: {
    roles: ['owner'],
    does: "transfer the account's ownership, change or remove its owners, and require two-factor sign-in of every member",
  },
} as const satisfies Record<string, { roles: readonly Role[]; does: string }>;

export type Permission = keyof typeof permissions;

export const permissionNames = Object.keys(permissions) as Permission[];

export const can = (role: Role, permission: Permission): boolean => (permissions[permission].roles as readonly Role[]).includes(role);

/** "owners and admins": who has the permission, in words. */
export function rolesWith(permission: Permission): string {
  const plural = permissions[permission].roles.map((role) => `${role}s`);
  return plural.length === 1 ? plural[0]! : `${plural.slice(0, -1).join(', ')} and ${plural.at(-1)}`;
}

/** What a role may do beyond reading, as the table says it: none for a viewer. */
export const powersOf = (role: Role): string[] =>
  permissionNames.filter((permission) => permission !== 'read' && can(role, permission)).map((permission) => permissions[permission].does);
