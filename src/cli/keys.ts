import { Command, InvalidArgumentError, Option } from 'commander';
import { type ApiKeyRecord, environments, keyTypes, mintKey, parseOrigin, scopes } from '../domain/api-keys.js';
import { type KeyStore, keysMissing } from '../ports/key-store.js';
import { CliError, UsageError } from './errors.js';

export interface Output {
  out: (line: string) => void;
  err: (line: string) => void;
}

const environmentNames = { test: 'sandbox', live: 'production' } as const;

const NAME_MAX = 100;

/** A key's name is shown in listings and logs of the operator: 1..100 printable characters, trimmed. */
function keyName(value: string): string {
  const name = value.trim();
  const length = [...name].length;
  if (length === 0 || length > NAME_MAX) throw new InvalidArgumentError(`A name has 1 to ${NAME_MAX} characters.`);
  // Control and invisible format characters (newlines, bidi overrides) would forge or hide listing lines.
  if (/[\p{Cc}\p{Cf}]/u.test(name)) throw new InvalidArgumentError('A name has printable characters only.');
  return name;
}

/** One more allowed origin of a pk key, as browsers send it in Origin. */
function allowedOrigin(value: string, previous: string[]): string[] {
  const origin = parseOrigin(value);
  if (origin === undefined)
    throw new InvalidArgumentError(
      'An origin is scheme://host[:port], such as https://app.example.com: no path, no trailing slash, no wildcard (repeat --origin for each).',
    );
  return [...previous, origin];
}

/** A key as the operator sees it: never the hash. */
function describe(record: ApiKeyRecord) {
  return {
    id: record.id,
    name: record.name,
    environment: record.environment,
    type: record.type,
    scopes: record.scopes,
    ends_with: record.last4,
    status: record.revoked_at === null ? 'active' : (record.revoked_reason ?? 'revoked'),
    created_at: record.created_at,
    revoked_at: record.revoked_at,
    rotated_from: record.rotated_from,
    origins: record.origins,
  };
}

/** A key's allowed origins in a listing: `*` for any (every sk key, and pk keys minted without --origin). */
const originsCell = (origins: string[]) => (origins.length === 0 ? '*' : origins.join(','));

function printMinted(output: Output, json: boolean, record: ApiKeyRecord, raw: string): void {
  if (json) {
    output.out(JSON.stringify({ ...describe(record), key: raw }));
    return;
  }
  // The raw key alone on stdout, so KEY=$(nature keys create …) works; the rest on stderr.
  output.err(`${record.id}: ${environmentNames[record.environment]} ${record.type} key "${record.name}" with ${record.scopes.join(', ')}`);
  output.out(raw);
  output.err('This is the only time this key is shown. Store it now; only its hash is kept.');
}

export interface KeyStores {
  /** The key store the server reads; only `create` may start a new one, every other command needs it to exist. */
  open(options: { create: boolean }): Promise<KeyStore>;
  /** keys.db in the data directory when the keys are kept elsewhere (MongoDB), to import from; a CliError otherwise. */
  openLeftBehind(): Promise<{ store: KeyStore; file: string }>;
}

export function keysCommand(stores: KeyStores, output: Output): Command {
  const keys = new Command('keys').description('mint, list, show, rotate and revoke API keys');
  const withStore = async (work: (store: KeyStore) => Promise<void>, options = { create: false }) => {
    const store = await stores.open(options);
    try {
      await work(store);
    } finally {
      await store.close();
    }
  };

  keys
    .command('create')
    .description('mint a key; the raw key is printed once')
    .addOption(new Option('--env <env>', 'test (sandbox) or live (production)').choices(environments).makeOptionMandatory())
    .addOption(new Option('--type <type>', 'pk (publishable) or sk (secret)').choices(keyTypes).makeOptionMandatory())
    .addOption(new Option('--scope <scope...>', 'a scope; repeat for several').choices(scopes).makeOptionMandatory())
    .requiredOption('--name <name>', `what the key is for: 1 to ${NAME_MAX} printable characters`, keyName)
    .option(
      '--origin <origin>',
      'a browser origin a pk key may be used from (scheme://host[:port]); repeat for several; none: any origin',
      allowedOrigin,
      [],
    )
    .option('--json', 'print one JSON object with id and key')
    .action(
      (options: {
        env: ApiKeyRecord['environment'];
        type: ApiKeyRecord['type'];
        scope: ApiKeyRecord['scopes'];
        name: string;
        origin: string[];
        json?: boolean;
      }) => {
        // A pk key writes only with an assessment's client secret: a write scope of its own would be a leak.
        if (options.type === 'pk' && options.scope.includes('nature:write'))
          throw new UsageError('a pk (publishable) key cannot have nature:write; mint an sk key for writes');
        // An sk key never runs in a browser, so it has no origins to allow.
        if (options.type === 'sk' && options.origin.length > 0)
          throw new UsageError('--origin is for pk (publishable) keys only; sk keys are never used from a browser');
        return withStore(
          async (store) => {
            const { raw, record } = mintKey(
              { name: options.name, environment: options.env, type: options.type, scopes: options.scope, origins: options.origin },
              new Date(),
            );
            await store.insert(record);
            printMinted(output, options.json === true, record, raw);
          },
          { create: true },
        );
      },
    );

  keys
    .command('list')
    .description('list keys in a table with a header line (never their raw values)')
    .option('--json', 'print a JSON array')
    .action((options: { json?: boolean }) =>
      withStore(async (store) => {
        const all = (await store.list()).map(describe);
        if (options.json) return output.out(JSON.stringify(all));
        const rows = all.map((key) => [
          key.id,
          `${key.environment}_${key.type}_…${key.ends_with}`,
          key.status,
          key.scopes.join(','),
          key.created_at,
          originsCell(key.origins),
          key.name,
        ]);
        for (const line of table(['ID', 'KEY', 'STATUS', 'SCOPES', 'CREATED', 'ORIGINS', 'NAME'], rows)) output.out(line);
        if (all.length === 0) output.err('nature: no keys yet: mint one with nature keys create');
      }),
    );

  keys
    .command('show')
    .description("one key's details: name, environment, type, scopes, status, dates, rotation (never the raw key or its hash)")
    .argument('<key_id>')
    .option('--json', 'print one JSON object')
    .action((keyId: string, options: { json?: boolean }) =>
      withStore(async (store) => {
        const key = await store.get(keyId);
        if (key === undefined) throw new CliError(`no key ${keyId}`);
        // The key that replaced this one by rotation, which only the replacement records.
        const rotatedTo =
          key.revoked_reason === 'rotated' ? ((await store.list()).find((other) => other.rotated_from === key.id)?.id ?? null) : null;
        const shown = { ...describe(key), rotated_to: rotatedTo };
        if (options.json) return output.out(JSON.stringify(shown));
        const fields: [string, string][] = [
          ['id', shown.id],
          ['name', shown.name],
          ['key', `${shown.environment}_${shown.type}_…${shown.ends_with}`],
          ['environment', `${shown.environment} (${environmentNames[shown.environment]})`],
          ['type', `${shown.type} (${shown.type === 'sk' ? 'secret' : 'publishable'})`],
          ['scopes', shown.scopes.join(', ')],
          ['origins', shown.type === 'pk' && shown.origins.length === 0 ? 'any' : shown.origins.join(', ') || '-'],
          ['status', shown.status],
          ['created_at', shown.created_at],
          ['revoked_at', shown.revoked_at ?? '-'],
          ['rotated_from', shown.rotated_from ?? '-'],
          ['rotated_to', shown.rotated_to ?? '-'],
        ];
        for (const line of table(undefined, fields)) output.out(line);
      }),
    );

  keys
    .command('rotate')
    .description('replace a key: the old one stops working at once, the new raw key is printed once')
    .argument('<key_id>')
    .option('--json', 'print one JSON object with id and key')
    .action((keyId: string, options: { json?: boolean }) =>
      withStore(async (store) => {
        const old = await activeKey(store, keyId);
        const { raw, record } = mintKey(old, new Date(), old.id);
        await store.rotate(old.id, record, record.created_at);
        printMinted(output, options.json === true, record, raw);
      }),
    );

  keys
    .command('revoke')
    .description('revoke a key for good: later requests with it get 401')
    .argument('<key_id>')
    .option('--json', 'print the revoked key as JSON')
    .action((keyId: string, options: { json?: boolean }) =>
      withStore(async (store) => {
        await activeKey(store, keyId);
        const revoked = (await store.revoke(keyId, new Date().toISOString(), 'revoked'))!;
        if (options.json) return output.out(JSON.stringify(describe(revoked)));
        output.out(`${keyId} revoked`);
      }),
    );

  keys
    .command('import')
    .description('copy the keys of keys.db into MongoDB, where they are kept with NATURE_READ_MODELS=mongodb (again is harmless)')
    .option('--json', 'print the ids imported and how many were there already')
    .action(async (options: { json?: boolean }) => {
      const { store: source, file } = await stores.openLeftBehind();
      try {
        await withStore(async (target) => {
          const missing = await keysMissing(source, target);
          // Revoked and rotated keys too, as they stand: a revoked key stays revoked.
          for (const record of missing) await target.insert(record);
          const already = (await source.list()).length - missing.length;
          if (options.json) output.out(JSON.stringify({ imported: missing.map((record) => record.id), already_there: already }));
          else output.out(`imported ${missing.length} key(s) into MongoDB; ${already} were there already`);
        });
      } finally {
        await source.close();
      }
      output.err(`nature: ${file} is no longer read; remove it (the server refuses to start while it holds keys that MongoDB lacks)`);
    });
  return keys;
}

/** Columns padded to their widest cell, two spaces apart; the last column (a free-text name) is not padded. */
function table(header: string[] | undefined, rows: string[][]): string[] {
  const all = header ? [header, ...rows] : rows;
  const widths = all[0]?.map((_, column) => Math.max(...all.map((row) => [...(row[column] ?? '')].length))) ?? [];
  return all.map((row) =>
    row.map((cell, column) => (column === row.length - 1 ? cell : cell + ' '.repeat(widths[column]! - [...cell].length))).join('  '),
  );
}

/** The key, unless it does not exist or is no longer active: then the command fails with one line. */
async function activeKey(store: KeyStore, keyId: string): Promise<ApiKeyRecord> {
  const key = await store.get(keyId);
  if (key === undefined) throw new CliError(`no key ${keyId}`);
  if (key.revoked_at !== null) throw new CliError(`key ${keyId} was already ${key.revoked_reason} at ${key.revoked_at}`);
  return key;
}
