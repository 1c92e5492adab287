import { Command } from 'commander';
import { findUser } from '../commands/accounts.js';
import { disableTwoFactor } from '../commands/two-factor.js';
import { type AccountStores, emailAddress, withContext } from './accounts.js';
import { CliError } from './errors.js';
import type { Output } from './keys.js';

/**
 * `nature users disable-two-factor`: the way back for a person who lost both their authenticator and their recovery
 * codes. Their password alone signs them in again (or, where the account requires two-factor sign-in, leads them to
 * set it up anew); the activity log records that the operator did it.
 */
export function disableTwoFactorCommand(stores: AccountStores, output: Output): Command {
  return new Command('disable-two-factor')
    .description("turn off a user's two-factor sign-in (a lost phone and lost recovery codes): their password alone signs them in again")
    .requiredOption('--email <email>', 'the address they sign in with', emailAddress)
    .option('--json', 'print one JSON object')
    .action((options: { email: string; json?: boolean }) => disableFor(stores, output, options));
}

function disableFor(stores: AccountStores, output: Output, { email, json }: { email: string; json?: boolean }): Promise<void> {
  return withContext(stores, { create: false }, async (accounts, open) => {
    const nobody = new CliError(`no user with ${email}: nature users list shows who there is`);
    if ((await accounts.users()).length === 0) throw nobody;
    const user = await findUser(await open(), email);
    if (user === undefined) throw nobody;
    if (!(await disableTwoFactor(accounts, { type: 'operator' }, user, new Date())))
      throw new CliError(`${email} has no two-factor sign-in: nothing to turn off`);
    if (json) return output.out(JSON.stringify({ id: user.id, email, two_factor: 'off' }));
    output.out(`${user.id} (${email}): two-factor sign-in is off; their recovery codes no longer work`);
  });
}
