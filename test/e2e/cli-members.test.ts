import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteAccountStore } from '../../src/adapters/sqlite/account-store.js';
import { ACCOUNT_ID, roles } from '../../src/domain/accounts.js';
import { can, permissionNames, permissions } from '../../src/domain/permissions.js';
import { expectFailure, runCliInProcess } from '../support/cli.js';
import { tempDir } from '../support/temp-dir.js';

const PASSWORD = 'correct horse battery staple';

describe('nature users: roles', () => {
  let dir: ReturnType<typeof tempDir>;
  let data: string;
  beforeEach(() => {
    dir = tempDir();
    data = join(dir.path, 'data');
  });
  afterEach(() => dir.cleanup());
  const nature = (args: string[], stdin?: string) => runCliInProcess(args, { NATURE_DATA_DIR: data }, stdin);

  it('makes an owner by default, and a member of any role with --role, recorded with the role', async () => {
    const owner = await nature(['users', 'create', '--email', 'first@example.com', '--password-stdin', '--json'], PASSWORD);
    const viewer = await nature(
      ['users', 'create', '--email', 'later@example.com', '--role', 'viewer', '--password-stdin', '--json'],
      PASSWORD,
    );
    expect([JSON.parse(owner.stdout).role, JSON.parse(viewer.stdout).role]).toEqual(['owner', 'viewer']);
    const list = await nature(['users', 'list']);
    expect(list.stdout).toMatch(/later@example\.com\s+viewer/);
    const accounts = new SqliteAccountStore(join(data, 'keys.db'), 'FULL');
    expect((await accounts.activity(ACCOUNT_ID, 10)).map((entry) => [entry.action, entry.detail])).toEqual([
      ['user.created', 'viewer'],
      ['user.created', 'owner'],
    ]);
    await accounts.close();
  });

  it('refuses a role that is not one, in one line, creating nothing', async () => {
    expectFailure(
      await nature(['users', 'create', '--email', 'ana@example.com', '--role', 'boss', '--password-stdin'], PASSWORD),
      2,
      /--role.*boss.*owner, admin, developer, viewer/,
    );
    expect(existsSync(data)).toBe(false);
  });

  it('prints the permission table the dashboard follows, as text and as JSON', async () => {
    const text = await nature(['users', 'roles']);
    expect(text.status, text.stderr).toBe(0);
    const [header, ...rows] = text.stdout.trimEnd().split('\n');
    expect(header!.split(/\s{2,}/)).toEqual(['PERMISSION', 'OWNER', 'ADMIN', 'DEVELOPER', 'VIEWER', 'ALLOWS']);
    expect(rows.map((row) => row.split(/\s{2,}/))).toEqual(
      permissionNames.map((permission) => [
        permission,
        ...roles.map((role) => (can(role, permission) ? 'yes' : 'no')),
        permissions[permission].does,
      ]),
    );
    expect(JSON.parse((await nature(['users', 'roles', '--json'])).stdout)).toEqual(permissions);
  });
});
