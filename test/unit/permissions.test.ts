import { describe, expect, it } from 'vitest';
import { allows, routeAccess } from '../../src/dashboard/route-access.js';
import { roles } from '../../src/domain/accounts.js';
import { guardMemberChange, memberChangeProblem } from '../../src/domain/members.js';
import { can, type Permission, permissionNames, powersOf, rolesWith } from '../../src/domain/permissions.js';

const granted = (role: (typeof roles)[number]) => permissionNames.filter((permission) => can(role, permission));

describe('the permission table (specification v1.1, Team and plans)', () => {
  it('has the four roles of the contract, most powerful first', () => {
    expect(roles).toEqual(['owner', 'admin', 'developer', 'viewer']);
  });

  it('§Team: owner has everything, members, ownership and production access included', () => {
    expect(granted('owner')).toEqual(permissionNames);
    expect(granted('owner')).toEqual(expect.arrayContaining(['members', 'ownership', 'production']));
  });

  it('§Team: admin has everything but ownership', () => {
    expect(granted('admin')).toEqual(permissionNames.filter((permission) => permission !== 'ownership'));
  });

  it('§Team: developer has keys, webhooks and events, and reads the rest (request logs, usage)', () => {
    expect(granted('developer')).toEqual(['read', 'keys', 'webhooks', 'events']);
  });

  it('§Team: viewer reads pages and changes nothing', () => {
    expect(granted('viewer')).toEqual(['read']);
    expect(powersOf('viewer')).toEqual([]);
  });

  it('says who has a permission in words', () => {
    expect(rolesWith('ownership')).toBe('owners');
    expect(rolesWith('members')).toBe('owners and admins');
    expect(rolesWith('read')).toBe('owners, admins, developers and viewers');
  });
});

describe('the rules of member changes', () => {
  it('lets owners and admins change members, and only owners change an owner', () => {
    expect(memberChangeProblem('owner', 'owner')).toBeUndefined();
    expect(memberChangeProblem('owner', 'viewer')).toBeUndefined();
    expect(memberChangeProblem('admin', 'admin')).toBeUndefined();
    expect(memberChangeProblem('admin', 'owner')).toBe('Only owners change or remove an owner.');
    expect(memberChangeProblem('developer', 'viewer')).toBe('Changing members is for owners and admins.');
    expect(memberChangeProblem('viewer', 'viewer')).toBe('Changing members is for owners and admins.');
  });

  it('makes a change only on the role it was decided on, and never leaves the account without an owner', () => {
    expect(guardMemberChange('developer', 'developer', 'viewer', 1)).toBe('done');
    expect(guardMemberChange('viewer', 'developer', 'admin', 1)).toBe('stale');
    expect(guardMemberChange(undefined, 'developer', undefined, 1)).toBe('stale');
    expect(guardMemberChange('owner', 'owner', 'admin', 1)).toBe('last_owner');
    expect(guardMemberChange('owner', 'owner', undefined, 1)).toBe('last_owner');
    expect(guardMemberChange('owner', 'owner', 'admin', 2)).toBe('done');
    expect(guardMemberChange('owner', 'owner', 'owner', 1)).toBe('done');
  });
});

describe("the dashboard's routes, as the table guards them", () => {
  const entries = Object.entries(routeAccess);

  it('names for each route a permission of the table, or open, or any member', () => {
    for (const [route, access] of entries)
      expect(['open', 'member', ...permissionNames], route).toContain(access as Permission | 'open' | 'member');
  });

  it("lets a viewer send no form but signing in and out, their own two-factor sign-in's, a set-up link's and an invitation's", () => {
    const viewerPosts = entries.filter(([route, access]) => route.startsWith('POST ') && allows(access, 'viewer')).map(([route]) => route);
    expect(viewerPosts.sort()).toEqual([
      'POST /dashboard/invitation',
      'POST /dashboard/security/recovery-codes',
      'POST /dashboard/security/two-factor/confirm',
      'POST /dashboard/security/two-factor/disable',
      'POST /dashboard/security/two-factor/start',
      'POST /dashboard/setup',
      'POST /dashboard/sign-in',
      'POST /dashboard/sign-in/two-factor',
      'POST /dashboard/sign-out',
    ]);
  });

  it('needs no more to show a form than to send it', () => {
    for (const [route, access] of entries.filter(([route]) => route.startsWith('GET /dashboard/keys/')))
      expect(access, route).toBe(routeAccess[route.replace('GET', 'POST')]);
  });
});
