import { Command, InvalidArgumentError, Option } from 'commander';
import { type AccountContext, createUser, decideApplication, emailOf, findUser, resetUser, UserExistsError } from '../commands/accounts.js';
import {
  ACCOUNT_ID,
  type ApplicationRecord,
  isEmail,
  normaliseEmail,
  passwordProblem,
  type Role,
  roles,
  SETUP_LINK_MS,
  type UserRecord,
} from '../domain/accounts.js';
import { can, permissionNames, permissions } from '../domain/permissions.js';
import { lineProblem } from '../domain/text.js';
import type { AccountStore } from '../ports/account-store.js';
import type { DataKeyStore } from '../ports/data-keys.js';
import type { Mailer } from '../ports/mailer.js';
import { CliError, UsageError } from './errors.js';
import type { Output } from './keys.js';
import { mailedLine, mailSetupLink, type SetupLink } from './setup-mail.js';
import { table } from './table.js';

export interface AccountStores {
  /** The account's store, beside the API keys; only `users create` may start a new one, every other command needs it to exist. */
  open(options: { create: boolean }): Promise<AccountStore>;
  /** The sandbox's data keys, which seal each user's address (opened only once a user is there to seal or open). */
  openDataKeys(): Promise<DataKeyStore>;
  /** Where the server is reached, for a set-up link: NATURE_PUBLIC_URL, else http://127.0.0.1:PORT. */
  publicBase(): string;
  /** All of standard input, as text. */
  readStdin(): Promise<string>;
  /** NATURE_SMTP_URL's relay, which set-up links are mailed through; none: they are printed. */
  mailer(): Mailer | undefined;
}

const SETUP_LINK_HOURS = SETUP_LINK_MS / 3600_000;

/** The one-time link a new (or reset) user sets a password at: the dashboard's set-up page with the token. */
const setupLink = (base: string, token: string) => `${base}/dashboard/setup?token=${encodeURIComponent(token)}`;

export function emailAddress(value: string): string {
  if (!isEmail(value)) throw new InvalidArgumentError('An e-mail address is name@domain.tld, without spaces.');
  return normaliseEmail(value);
}

const REASON_MAX = 500;

/** A rejection's reason is shown to the account's people: 1..500 printable characters, trimmed. */
function reason(value: string): string {
  const problem = lineProblem('A reason', value, REASON_MAX);
  if (problem !== undefined) throw new InvalidArgumentError(problem);
  return value.trim();
}

/** The password piped in: one trailing line break (from echo, or a file) is not part of it. */
async function passwordFromStdin(stores: AccountStores): Promise<string> {
  const password = (await stores.readStdin()).replace(/\r?\n$/, '');
  const problem = passwordProblem(password);
  if (problem !== undefined) throw new UsageError(`the password on standard input is refused: ${problem}`);
  return password;
}

/** A user as the operator sees them: the address opened, never the password's hash or the set-up token's. */
async function describeUser(context: AccountContext, user: UserRecord) {
  return {
    id: user.id,
    email: await emailOf(context, user),
    account_id: user.account_id,
    role: user.role,
    created_at: user.created_at,
    password_set: user.password_hash !== null,
    setup_link_expires_at: user.setup_expires_at,
  };
}

/** What was printed of a set-up link: the link alone on stdout (LINK=$(nature users …) works), the rest on stderr. */
function printLink(output: Output, link: string, email: string, expiresAt: string): void {
  output.out(link);
  output.err(
    `This link works once, for ${SETUP_LINK_HOURS} hours (until ${expiresAt}), and is shown only now: send it to ${email} yourself. ` +
      `A lost one is replaced by nature users reset --email ${email}.`,
  );
}

export function usersCommand(stores: AccountStores, output: Output): Command {
  const users = new Command('users').description("the dashboard's people: create them, list them, reset their access");
  users
    .command('create')
    .description(
      `add a person who signs in to the dashboard; without --password-stdin a set-up link that works once, for ${SETUP_LINK_HOURS} hours, is mailed to them (NATURE_SMTP_URL) or printed`,
    )
    .requiredOption('--email <email>', 'the address they sign in with', emailAddress)
    .addOption(new Option('--role <role>', 'their role (nature users roles says what each may do)').choices(roles).default('owner'))
    .option('--password-stdin', 'read their password from standard input (at least 12 characters) instead of printing a set-up link')
    .option('--json', 'print one JSON object (with setup_link, null once mailed or when the password was given, and setup_link_mailed)')
    .action((options: UserCreateOptions) => addUser(stores, output, options));
  users
    .command('list')
    .description('list the people who sign in to the dashboard: id, e-mail, role, created, whether a password is set')
    .option('--json', 'print a JSON array')
    .action((options: { json?: boolean }) => listUsers(stores, output, options));
  users
    .command('reset')
    .description(
      `give a user a new set-up link (mailed to them with NATURE_SMTP_URL, else printed once; the old one stops working) and end every session of theirs`,
    )
    .requiredOption('--email <email>', 'the address they sign in with', emailAddress)
    .option('--json', 'print one JSON object with setup_link (null once mailed) and setup_link_mailed')
    .action((options: { email: string; json?: boolean }) => resetAccess(stores, output, options));
  users
    .command('roles')
    .description("what each role may do in the dashboard: the permission table the dashboard's pages and routes follow")
    .option('--json', 'print one JSON object: each permission with what it allows and the roles that have it')
    .action((options: { json?: boolean }) => listRoles(output, options));
  return users;
}

function listRoles(output: Output, options: { json?: boolean }): void {
  if (options.json) {
    output.out(JSON.stringify(permissions));
    return;
  }
  const rows = permissionNames.map((permission) => [
    permission,
    ...roles.map((role) => (can(role, permission) ? 'yes' : 'no')),
    permissions[permission].does,
  ]);
  for (const line of table(['PERMISSION', ...roles.map((role) => role.toUpperCase()), 'ALLOWS'], rows)) output.out(line);
}

/** The account's store and, once `work` asks, the data keys; both closed at the end. */
export async function withContext(
  stores: AccountStores,
  options: { create: boolean },
  work: (accounts: AccountStore, context: () => Promise<AccountContext>) => Promise<void>,
): Promise<void> {
  const accounts = await stores.open(options);
  let dataKeys: DataKeyStore | undefined;
  try {
    await work(accounts, async () => {
      dataKeys ??= await stores.openDataKeys();
      return { accounts, dataKeys };
    });
  } finally {
    await dataKeys?.close();
    await accounts.close();
  }
}

interface UserCreateOptions {
  email: string;
  role: Role;
  passwordStdin?: boolean;
  json?: boolean;
}

async function addUser(stores: AccountStores, output: Output, options: UserCreateOptions): Promise<void> {
  // All that can be wrong on the command line is found before anything is opened or created.
  const password = options.passwordStdin ? await passwordFromStdin(stores) : undefined;
  const base = password === undefined ? stores.publicBase() : undefined;
  const mailer = password === undefined ? stores.mailer() : undefined;
  await withContext(stores, { create: true }, async (_accounts, open) => {
    const context = await open();
    const created = await createUser(context, options.email, password, new Date(), options.role).catch((error: unknown) => {
      if (error instanceof UserExistsError)
        throw new CliError(
          `a user with ${options.email} exists already: nature users reset --email ${options.email} gives them a new set-up link`,
        );
      throw error;
    });
    const { user, setupToken } = created;
    const link = setupToken === undefined ? null : setupLink(base!, setupToken);
    const setup: SetupLink | undefined =
      link === null ? undefined : { email: options.email, link, expiresAt: user.setup_expires_at!, reset: false };
    const mailed = setup !== undefined && (await mailSetupLink(mailer, output, setup));
    if (options.json) return output.out(JSON.stringify({ ...(await describeUser(context, user)), ...linkFields(setup, mailed) }));
    if (setup === undefined)
      return output.out(`${user.id} created: ${options.email}, ${user.role} of ${user.account_id}, with the password given`);
    if (mailed) return output.out(`${user.id} created: ${options.email}, ${user.role} of ${user.account_id}; ${mailedLine(setup)}`);
    output.err(`${user.id} created: ${options.email}, ${user.role} of ${user.account_id}; they set a password at this link:`);
    printLink(output, setup.link, options.email, setup.expiresAt);
  }).finally(() => mailer?.close());
}

/** In JSON: the link, or null once it was mailed (or when there is none), and whether it was mailed. */
const linkFields = (setup: SetupLink | undefined, mailed: boolean) =>
  setup === undefined ? { setup_link: null } : { setup_link: mailed ? null : setup.link, setup_link_mailed: mailed };

function listUsers(stores: AccountStores, output: Output, options: { json?: boolean }): Promise<void> {
  return withContext(stores, { create: false }, async (accounts, open) => {
    const all = await accounts.users();
    // No user, no address to open: the data keys are not opened (nor made) for nothing.
    const context = all.length === 0 ? undefined : await open();
    const shown = context === undefined ? [] : await Promise.all(all.map((user) => describeUser(context, user)));
    if (options.json) return output.out(JSON.stringify(shown));
    const rows = shown.map((user) => [user.id, user.email, user.role, user.created_at, user.password_set ? 'yes' : 'no']);
    for (const line of table(['ID', 'EMAIL', 'ROLE', 'CREATED', 'PASSWORD'], rows)) output.out(line);
    if (shown.length === 0) output.err('nature: no users yet: add one with nature users create --email EMAIL');
  });
}

function resetAccess(stores: AccountStores, output: Output, options: { email: string; json?: boolean }): Promise<void> {
  const base = stores.publicBase();
  const mailer = stores.mailer();
  return withContext(stores, { create: false }, async (accounts, open) => {
    const nobody = new CliError(`no user with ${options.email}: nature users list shows who there is`);
    if ((await accounts.users()).length === 0) throw nobody;
    const context = await open();
    const user = await findUser(context, options.email);
    if (user === undefined) throw nobody;
    const token = await resetUser(context, user, new Date());
    const reset = (await accounts.user(user.id))!;
    const setup = { email: options.email, link: setupLink(base, token), expiresAt: reset.setup_expires_at!, reset: true };
    const mailed = await mailSetupLink(mailer, output, setup);
    if (options.json) return output.out(JSON.stringify({ ...(await describeUser(context, reset)), ...linkFields(setup, mailed) }));
    if (mailed) return output.out(`${user.id} (${options.email}): every session ended; ${mailedLine(setup)}`);
    output.err(
      `${user.id} (${options.email}): every session ended; they set a new password at this link (until then, a password they had still works):`,
    );
    printLink(output, setup.link, options.email, setup.expiresAt);
  }).finally(() => mailer?.close());
}

/** The application as the operator reviews it. */
const describeApplication = (application: ApplicationRecord) => ({
  account_id: application.account_id,
  status: application.status,
  organisation: application.organisation,
  intended_use: application.intended_use,
  expected_monthly_completions: application.expected_monthly_completions,
  submitted_by: application.submitted_by,
  submitted_at: application.submitted_at,
  decided_at: application.decided_at,
  reason: application.reason,
});

/** At v1 there is one account: any other id names none. */
function knownAccount(accountId: string): string {
  if (accountId !== ACCOUNT_ID) throw new CliError(`no account ${accountId}: the one account at v1 is ${ACCOUNT_ID}`);
  return accountId;
}

const notApplied = (accountId: string) =>
  new CliError(`${accountId} has not applied for production access (its people apply in the dashboard)`);

export function applicationsCommand(stores: Pick<AccountStores, 'open'>, output: Output): Command {
  const applications = new Command('applications').description('review applications for production access: live keys need one approved');
  applications
    .command('list')
    .description('list applications for production access: account, status, expected completions, submitted, organisation')
    .option('--json', 'print a JSON array')
    .action((options: { json?: boolean }) => listApplications(stores, output, options));
  applications
    .command('show')
    .description("an application's details: organisation, intended use, expected completions, who submitted it, the decision")
    .argument('<account_id>')
    .option('--json', 'print one JSON object')
    .action((accountId: string, options: { json?: boolean }) => showApplication(stores, output, accountId, options));
  applications
    .command('approve')
    .description("approve the account's pending application: its people may then create production (live) keys")
    .argument('<account_id>')
    .option('--json', 'print the decided application as JSON')
    .action((accountId: string, options: { json?: boolean }) =>
      decide(stores, output, { accountId, status: 'approved', why: null, json: options.json === true }),
    );
  applications
    .command('reject')
    .description("reject the account's pending application, with a reason its people see; they may apply again")
    .argument('<account_id>')
    .requiredOption('--reason <text>', `why, for the applicant: 1 to ${REASON_MAX} printable characters`, reason)
    .option('--json', 'print the decided application as JSON')
    .action((accountId: string, options: { reason: string; json?: boolean }) =>
      decide(stores, output, { accountId, status: 'rejected', why: options.reason, json: options.json === true }),
    );
  return applications;
}

async function withAccounts(stores: Pick<AccountStores, 'open'>, work: (accounts: AccountStore) => Promise<void>): Promise<void> {
  const accounts = await stores.open({ create: false });
  try {
    await work(accounts);
  } finally {
    await accounts.close();
  }
}

function listApplications(stores: Pick<AccountStores, 'open'>, output: Output, options: { json?: boolean }): Promise<void> {
  return withAccounts(stores, async (accounts) => {
    const application = await accounts.application(ACCOUNT_ID);
    const all = application === undefined ? [] : [describeApplication(application)];
    if (options.json) return output.out(JSON.stringify(all));
    const rows = all.map((each) => [
      each.account_id,
      each.status,
      String(each.expected_monthly_completions),
      each.submitted_at,
      each.organisation,
    ]);
    for (const line of table(['ACCOUNT', 'STATUS', 'COMPLETIONS/MONTH', 'SUBMITTED', 'ORGANISATION'], rows)) output.out(line);
    if (all.length === 0) output.err('nature: no application for production access yet');
  });
}

function showApplication(
  stores: Pick<AccountStores, 'open'>,
  output: Output,
  accountId: string,
  options: { json?: boolean },
): Promise<void> {
  return withAccounts(stores, async (accounts) => {
    const application = await accounts.application(knownAccount(accountId));
    if (application === undefined) throw notApplied(accountId);
    const shown = describeApplication(application);
    if (options.json) return output.out(JSON.stringify(shown));
    const fields: [string, string][] = [
      ['account_id', shown.account_id],
      ['status', shown.status],
      ['organisation', shown.organisation],
      ['intended_use', shown.intended_use],
      ['expected_monthly_completions', String(shown.expected_monthly_completions)],
      ['submitted_by', shown.submitted_by],
      ['submitted_at', shown.submitted_at],
      ['decided_at', shown.decided_at ?? '-'],
      ['reason', shown.reason === null ? '-' : shown.reason],
    ];
    for (const line of table(undefined, fields)) output.out(line);
  });
}

interface Decision {
  accountId: string;
  status: 'approved' | 'rejected';
  why: string | null;
  json: boolean;
}

/** Decides the pending application; anything else fails with one line that says how it stands. */
function decide(stores: Pick<AccountStores, 'open'>, output: Output, { accountId, status, why, json }: Decision): Promise<void> {
  return withAccounts(stores, async (accounts) => {
    knownAccount(accountId);
    const decided = await decideApplication(accounts, { status, reason: why }, new Date());
    if (decided === undefined) {
      const current = await accounts.application(accountId);
      if (current === undefined) throw notApplied(accountId);
      throw new CliError(
        `the application of ${accountId} was ${current.status} already, at ${current.decided_at}: only a pending one is decided`,
      );
    }
    if (json) return output.out(JSON.stringify(describeApplication(decided)));
    output.out(
      status === 'approved'
        ? `${accountId}: production access approved; its people may now create live keys`
        : `${accountId}: production access rejected (${why}); its people may apply again`,
    );
  });
}
