import type { Command } from 'commander';

/** One example per command, by its path under `nature`: `nature --help` lists every command with its own. */
const examples: Record<string, string> = {
  'keys create': 'nature keys create --env test --type sk --scope nature:read --scope nature:write --name "my backend"',
  'keys list': 'nature keys list',
  'keys show': 'nature keys show key_01M7ZRVYPSC40AR17Y7WS0FTK0',
  'keys rotate': 'nature keys rotate key_01M7ZRVYPSC40AR17Y7WS0FTK0',
  'keys revoke': 'nature keys revoke key_01M7ZRVYPSC40AR17Y7WS0FTK0',
  'keys import': 'NATURE_READ_MODELS=mongodb MONGODB_URL=mongodb://127.0.0.1:27017 nature keys import',
  'users create': 'NATURE_PUBLIC_URL=https://api.example.com nature users create --email ana@example.com',
  'users list': 'nature users list',
  'users reset': 'nature users reset --email ana@example.com',
  'users roles': 'nature users roles',
  'users disable-two-factor': 'nature users disable-two-factor --email ana@example.com',
  'applications list': 'nature applications list',
  'applications show': 'nature applications show acct_default',
  'applications approve': 'nature applications approve acct_default',
  'applications reject': 'nature applications reject acct_default --reason "Tell us which product the assessments are for."',
  'profiles rebuild': 'nature profiles rebuild --scoring-version mn76-v2 --env live',
  audit: 'nature audit sub_01M7ZRVYPSC40AR17Y7WS0FTK0 --env test --json',
  'situational rebuild': 'nature situational rebuild --method-version situational-v1 --env live',
  usage: 'nature usage --env live --from 2026-11-01 --to 2026-12-01 --granularity month',
  'usage statement': 'nature usage statement --month 2026-11 --format csv > statement-2026-11.csv',
  'account plan set': 'nature account plan set standard',
  'account plan show': 'nature account plan show --json',
  'logs tail': 'nature logs tail --env test --status 4xx --since 15m',
  'master-key rotate': 'nature master-key rotate --data-dir /srv/nature',
  'careers import': 'nature careers import ~/Downloads/db_27_0_text.zip',
  'careers status': 'nature careers status',
  listen: 'NATURE_API_KEY=test_sk_… nature listen --forward-to http://localhost:3000/webhooks',
  trigger: 'NATURE_API_KEY=test_sk_… nature trigger nature.assessment.completed',
  mcp: 'NATURE_API_KEY=test_sk_… nature mcp --base-url https://nature.example.com',
};

/**
 * The commands that do something (`keys create`, not `keys`), in the order they were added: a command with
 * subcommands that runs something itself too (`usage`, beside `usage statement`) is the one with an example.
 */
function leaves(command: Command): Command[] {
  return command.commands.flatMap((child) =>
    child.commands.length === 0 ? [child] : [...(examples[pathOf(child)] === undefined ? [] : [child]), ...leaves(child)],
  );
}

const pathOf = (command: Command): string => (command.parent?.parent ? `${pathOf(command.parent)} ${command.name()}` : command.name());

/** `keys create --env <env> … [--json]`: the arguments and options a command takes, required ones bare. */
function synopsis(command: Command): string {
  const argumentsOf = command.registeredArguments.map((argument) => (argument.required ? `<${argument.name()}>` : `[${argument.name()}]`));
  const options = command.options.map((option) => (option.mandatory ? option.flags : `[${option.flags}]`));
  return [pathOf(command), ...argumentsOf, ...options].join(' ');
}

/**
 * Lists every command with its description and an example under `nature --help` (in place of commander's
 * list of the top-level groups only), and puts the example in each command's own `--help` too.
 */
export function addCommandHelp(program: Command): void {
  const all = leaves(program);
  for (const command of all) {
    const example = examples[pathOf(command)];
    if (example !== undefined) command.addHelpText('after', `\nExample:\n  $ ${example}\n`);
  }
  program.configureHelp({ visibleCommands: () => [] });
  program.addHelpText('after', () => {
    const lines = all.flatMap((command) => {
      const example = examples[pathOf(command)];
      return [
        `  nature ${synopsis(command)}`,
        `      ${command.description()}`,
        ...(example === undefined ? [] : [`      $ ${example}`]),
        '',
      ];
    });
    return ['', 'Commands (each also takes --data-dir DIR and --help; run "nature COMMAND --help" for its options):', '', ...lines].join(
      '\n',
    );
  });
}
