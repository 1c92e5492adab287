import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteAccountStore } from '../../src/adapters/sqlite/account-store.js';
import { ACCOUNT_ID } from '../../src/domain/accounts.js';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { killedAsItWrites } from '../support/kill-on-write.js';
import { tempDir } from '../support/temp-dir.js';

/** Runs killed: each lands at one moment of the write, so several are needed to land between a change and its entry. */
const RUNS = 8;

/**
 * Issue 46, point 5: the operator's changes to the account (its plan, its members) are in the activity log with
 * the change itself, one transaction, so a `nature` process killed with SIGKILL in the middle of its write leaves
 * both or neither.
 */
describe('operator changes killed with SIGKILL in the middle of their write', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeEach(async () => {
    dir = tempDir();
    // keys.db exists first, so what a later run writes to it first is its change.
    expect((await nature(keyCreateArgs('test', 'first'))).status).toBe(0);
  });
  afterEach(() => dir.cleanup());
  const nature = (args: string[]) => runCliInProcess(args, { NATURE_DATA_DIR: dir.path });

  async function afterwards<T>(read: (accounts: SqliteAccountStore) => Promise<T>): Promise<T> {
    const accounts = new SqliteAccountStore(join(dir.path, 'keys.db'), 'FULL');
    try {
      return await read(accounts);
    } finally {
      await accounts.close();
    }
  }

  it('leaves the plan the newest plan.changed entry names, each entry going on from the one before', async () => {
    const endings: (number | string)[] = [];
    for (let run = 0; run < RUNS; run += 1)
      endings.push(await killedAsItWrites(dir.path, ['account', 'plan', 'set', run % 2 === 0 ? 'standard' : 'scale']));
    // A change after the kills, seen through: it goes on from whatever plan they left.
    const { plan: left } = await afterwards(async (accounts) => ({ plan: await accounts.plan(ACCOUNT_ID) }));
    expect((await nature(['account', 'plan', 'set', left?.plan === 'scale' ? 'standard' : 'scale'])).status).toBe(0);
    const { plan, entries } = await afterwards(async (accounts) => ({
      plan: await accounts.plan(ACCOUNT_ID),
      entries: (await accounts.activity(ACCOUNT_ID, 1000)).filter((entry) => entry.action === 'plan.changed').reverse(),
    }));
    // "the default, starter, overage metered → standard, overage metered": the plan before, then the plan after.
    const steps = entries.map((entry) => /^(?:the default, )?(\w+), [^→]*→ (\w+),/.exec(entry.detail ?? '')!.slice(1, 3));
    expect(steps.length).toBeGreaterThan(0);
    expect(steps.map(([from]) => from)).toEqual(['starter', ...steps.slice(0, -1).map(([, to]) => to)]);
    expect(plan?.plan).toBe(steps.at(-1)![1]);
    expect(endings.filter((ending) => ending === 'SIGKILL').length).toBeGreaterThan(RUNS / 2);
  });

  it('leaves every member the operator added with its user.created entry, and no entry without its member', async () => {
    const endings: (number | string)[] = [];
    for (let run = 0; run < RUNS; run += 1)
      endings.push(await killedAsItWrites(dir.path, ['users', 'create', '--email', `killed-${run}@example.com`, '--role', 'viewer']));
    expect((await nature(['users', 'create', '--email', 'after@example.com', '--role', 'viewer'])).status).toBe(0);
    const { users, recorded } = await afterwards(async (accounts) => ({
      users: (await accounts.users()).map((user) => user.id).sort(),
      recorded: (await accounts.activity(ACCOUNT_ID, 1000))
        .filter((entry) => entry.action === 'user.created')
        .map((entry) => entry.target)
        .sort(),
    }));
    expect(users.length).toBeGreaterThan(0);
    expect(recorded).toEqual(users);
    expect(endings.filter((ending) => ending === 'SIGKILL').length).toBeGreaterThan(RUNS / 2);
  });
});
