import { Command, InvalidArgumentError, Option } from 'commander';
import { type KeyContext, mintApiKey, revokeApiKey, rotateApiKey } from '../commands/api-keys.js';
import type { Actor } from '../domain/accounts.js';
import {
  type ApiKeyRecord,
  environments,
  KEY_NAME_MAX,
  keyHint,
  keyNameProblem,
  keyTypes,
  type MintRequest,
  mintProblem,
  parseOrigin,
  type RollExpiry,
  rollExpiryNames,
  rollingAt,
  scopes,
} from '../domain/api-keys.js';
import type { AccountStore } from '../ports/account-store.js';
import { type KeyStore, keysMissing } from '../ports/key-store.js';
import { CliError, UsageError } from './errors.js';
import { table } from './table.js';

export interface Output {
  out: (line: string) => void;
  err: (line: string) => void;
}

const environmentNames = { test: 'sandbox', live: 'production' } as const;

/** The operator at the command line, as the account's activity names them. */
const operator: Actor = { type: 'operator' };

/** A key's name is shown in listings and logs of the operator: 1..100 printable characters, trimmed (the dashboard's rule too). */
function keyName(value: string): string {
  const problem = keyNameProblem(value.trim());
  if (problem !== undefined) throw new InvalidArgumentError(problem);
  return value.trim();
}

/**
 * Why the command line's request breaks a rule of keys, or undefined: the rules the dashboard applies
 * (mintProblem), two of them worded with the options that break them.
 */
function mintRequestProblem(request: MintRequest): string | undefined {
  if (request.type === 'pk' && request.scopes.includes('nature:write'))
    return 'a pk (publishable) key cannot have nature:write; mint an sk key for writes';
  if (request.type === 'sk' && (request.origins?.length ?? 0) > 0)
    return '--origin is for pk (publishable) keys only; sk keys are never used from a browser';
  return mintProblem(request);
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
    // A rolled key in its grace period works until revoked_at: "expiring".
    status: record.revoked_at === null ? 'active' : rollingAt(record, new Date()) ? 'expiring' : (record.revoked_reason ?? 'revoked'),
    created_at: record.created_at,
    revoked_at: record.revoked_at,
    rotated_from: record.rotated_from,
    origins: record.origins,
    last_used_at: record.last_used_at,
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
  /**
   * keys.db in the data directory when the keys are kept elsewhere (MongoDB, PostgreSQL: `backend`), to import from;
   * a CliError otherwise.
   */
  openLeftBehind(): Promise<{ store: KeyStore; file: string; backend: string }>;
  /** The account's store beside the keys, where each change to a key is recorded; opened once the key store was. */
  openAccounts(): Promise<AccountStore>;
}

export function keysCommand(stores: KeyStores, output: Output): Command {
  const keys = new Command('keys').description('mint, list, show, rotate and revoke API keys');
  keys
    .command('create')
    .description('mint a key; the raw key is printed once')
    .addOption(new Option('--env <env>', 'test (sandbox) or live (production)').choices(environments).makeOptionMandatory())
    .addOption(new Option('--type <type>', 'pk (publishable) or sk (secret)').choices(keyTypes).makeOptionMandatory())
    .addOption(new Option('--scope <scope...>', 'a scope; repeat for several').choices(scopes).makeOptionMandatory())
    .requiredOption('--name <name>', `what the key is for: 1 to ${KEY_NAME_MAX} printable characters`, keyName)
    .option(
      '--origin <origin>',
      'a browser origin a pk key may be used from (scheme://host[:port]); repeat for several; none: any origin',
      allowedOrigin,
      [],
    )
    .option('--json', 'print one JSON object with id and key')
    .action((options: CreateOptions) => createKey(stores, output, options));
  keys
    .command('list')
    .description('list keys in a table with a header line (never their raw values)')
    .option('--json', 'print a JSON array')
    .action((options: { json?: boolean }) => listKeys(stores, output, options));
  keys
    .command('show')
    .description("one key's details: name, environment, type, scopes, status, dates, rotation (never the raw key or its hash)")
    .argument('<key_id>')
    .option('--json', 'print one JSON object')
    .action((keyId: string, options: { json?: boolean }) => showKey(stores, output, keyId, options));
  keys
    .command('rotate')
    .description('replace a key: the new raw key is printed once; the old one stops working at once, or after --expires-in')
    .argument('<key_id>')
    .addOption(
      new Option('--expires-in <when>', 'how long the old key keeps working beside the new one').choices(rollExpiryNames).default('now'),
    )
    .option('--json', 'print one JSON object with id and key')
    .action((keyId: string, options: { expiresIn: RollExpiry; json?: boolean }) => rotateKey(stores, output, keyId, options));
  keys
    .command('revoke')
    .description('revoke a key for good: later requests with it get 401')
    .argument('<key_id>')
    .option('--json', 'print the revoked key as JSON')
    .action((keyId: string, options: { json?: boolean }) => revokeKey(stores, output, keyId, options));
  keys
    .command('import')
    .description(
      'copy the keys of keys.db into MongoDB or PostgreSQL, where they are kept with NATURE_READ_MODELS=mongodb or postgres (again is harmless)',
    )
    .option('--json', 'print the ids imported and how many were there already')
    .action((options: { json?: boolean }) => importKeys(stores, output, options));
  return keys;
}

async function withStore(stores: KeyStores, work: (store: KeyStore) => Promise<void>, options = { create: false }): Promise<void> {
  const store = await stores.open(options);
  try {
    await work(store);
  } finally {
    await store.close();
  }
}

/** The key store and the account's, for a change that the account's activity records. */
function withKeyContext(stores: KeyStores, work: (context: KeyContext) => Promise<void>, options = { create: false }): Promise<void> {
  return withStore(
    stores,
    async (store) => {
      const accounts = await stores.openAccounts();
      try {
        await work({ keys: store, accounts });
      } finally {
        await accounts.close();
      }
    },
    options,
  );
}

interface CreateOptions {
  env: ApiKeyRecord['environment'];
  type: ApiKeyRecord['type'];
  scope: ApiKeyRecord['scopes'];
  name: string;
  origin: string[];
  json?: boolean;
}

function createKey(stores: KeyStores, output: Output, options: CreateOptions): Promise<void> {
  const request = {
    name: options.name,
    environment: options.env,
    type: options.type,
    scopes: options.scope,
    origins: options.origin,
  };
  // Refused before any store is opened: a wrong command line creates nothing.
  const problem = mintRequestProblem(request);
  if (problem !== undefined) throw new UsageError(problem);
  return withKeyContext(
    stores,
    async (context) => {
      // The operator, who approves applications, may mint production keys without one.
      const { raw, record } = await mintApiKey(context, operator, request, new Date());
      printMinted(output, options.json === true, record, raw);
    },
    { create: true },
  );
}

function listKeys(stores: KeyStores, output: Output, options: { json?: boolean }): Promise<void> {
  return withStore(stores, async (store) => {
    const all = (await store.list()).map(describe);
    if (options.json) return output.out(JSON.stringify(all));
    const rows = all.map((key) => [
      key.id,
      keyHint(key, key.ends_with),
      key.status,
      key.scopes.join(','),
      key.created_at,
      key.last_used_at ?? 'never',
      originsCell(key.origins),
      key.name,
    ]);
    for (const line of table(['ID', 'KEY', 'STATUS', 'SCOPES', 'CREATED', 'LAST USED', 'ORIGINS', 'NAME'], rows)) output.out(line);
    if (all.length === 0) output.err('nature: no keys yet: mint one with nature keys create');
  });
}

function showKey(stores: KeyStores, output: Output, keyId: string, options: { json?: boolean }): Promise<void> {
  return withStore(stores, async (store) => {
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
      ['key', keyHint(shown, shown.ends_with)],
      ['environment', `${shown.environment} (${environmentNames[shown.environment]})`],
      ['type', `${shown.type} (${shown.type === 'sk' ? 'secret' : 'publishable'})`],
      ['scopes', shown.scopes.join(', ')],
      ['origins', shown.type === 'pk' && shown.origins.length === 0 ? 'any' : shown.origins.join(', ') || '-'],
      ['status', shown.status],
      ['created_at', shown.created_at],
      ['revoked_at', shown.revoked_at ?? '-'],
      ['last_used_at', shown.last_used_at ?? 'never (to the hour)'],
      ['rotated_from', shown.rotated_from ?? '-'],
      ['rotated_to', shown.rotated_to ?? '-'],
    ];
    for (const line of table(undefined, fields)) output.out(line);
  });
}

function rotateKey(stores: KeyStores, output: Output, keyId: string, options: { expiresIn: RollExpiry; json?: boolean }): Promise<void> {
  return withKeyContext(stores, async (context) => {
    await activeKey(context.keys, keyId);
    const { raw, record } = await rotateApiKey(context, operator, keyId, new Date(), options.expiresIn);
    printMinted(output, options.json === true, record, raw);
    const old = (await context.keys.get(keyId))!;
    output.err(options.expiresIn === 'now' ? `${keyId} no longer works` : `${keyId} works until ${old.revoked_at}, beside the new key`);
  });
}

function revokeKey(stores: KeyStores, output: Output, keyId: string, options: { json?: boolean }): Promise<void> {
  return withKeyContext(stores, async (context) => {
    // A key rolled with an expiry may be revoked before it comes.
    const key = await context.keys.get(keyId);
    if (key === undefined || !rollingAt(key, new Date())) await activeKey(context.keys, keyId);
    const revoked = await revokeApiKey(context, operator, keyId, new Date());
    if (options.json) return output.out(JSON.stringify(describe(revoked)));
    output.out(`${keyId} revoked`);
  });
}

/** Copies what keys.db holds into the backend that keeps the keys, then says the file is no longer read. */
async function importKeys(stores: KeyStores, output: Output, options: { json?: boolean }): Promise<void> {
  const { store: source, file, backend } = await stores.openLeftBehind();
  try {
    await withStore(stores, async (target) => {
      const missing = await keysMissing(source, target);
      // Revoked and rotated keys too, as they stand: a revoked key stays revoked.
      for (const record of missing) await target.insert(record);
      const already = (await source.list()).length - missing.length;
      if (options.json) output.out(JSON.stringify({ imported: missing.map((record) => record.id), already_there: already }));
      else output.out(`imported ${missing.length} key(s) into ${backend}; ${already} were there already`);
    });
  } finally {
    await source.close();
  }
  output.err(`nature: ${file} is no longer read; remove it (the server refuses to start while it holds keys that ${backend} lacks)`);
}

/** The key, unless it does not exist or is no longer active: then the command fails with one line (the operator's wording). */
async function activeKey(store: KeyStore, keyId: string): Promise<ApiKeyRecord> {
  const key = await store.get(keyId);
  if (key === undefined) throw new CliError(`no key ${keyId}`);
  if (key.revoked_at !== null) throw new CliError(`key ${keyId} was already ${key.revoked_reason} at ${key.revoked_at}`);
  return key;
}
