import { readFile } from 'node:fs/promises';
import { type ConnectionOptions, credsAuthenticator, ErrorCode, nkeyAuthenticator } from 'nats';
import type { NatsAccess } from '../../settings/config.js';
import { BackendRefusal, fileProblem, OperatorError } from '../../support/operator-errors.js';

/**
 * The connection options that reach and log in to NATS as `access` says. Key and certificate files are
 * read here, once, so a missing or unreadable one stops start-up naming its setting rather than failing
 * every reconnect later. The options hold secrets: they are passed to the client and never logged.
 */
export async function connectionOptions(access: NatsAccess): Promise<Partial<ConnectionOptions>> {
  const options: Partial<ConnectionOptions> = { servers: access.url };
  const { auth, tls } = access;
  switch (auth.kind) {
    case 'user':
      Object.assign(options, { user: auth.user, pass: auth.password });
      break;
    case 'token':
      options.token = auth.token;
      break;
    case 'nkey':
      options.authenticator = nkeyAuthenticator(new TextEncoder().encode((await read('NATS_NKEY_SEED_FILE', auth.seedFile)).trim()));
      break;
    case 'creds':
      options.authenticator = credsAuthenticator(new TextEncoder().encode(await read('NATS_CREDS_FILE', auth.credsFile)));
      break;
  }
  if (tls !== undefined) {
    options.tls = {
      ...(tls.caFile !== undefined && { ca: await read('NATS_TLS_CA_FILE', tls.caFile) }),
      ...(tls.certFile !== undefined && { cert: await read('NATS_TLS_CERT_FILE', tls.certFile) }),
      ...(tls.keyFile !== undefined && { key: await read('NATS_TLS_KEY_FILE', tls.keyFile) }),
    };
  }
  return options;
}

async function read(setting: string, file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new OperatorError(fileProblem(`${setting} ${file}`, error as NodeJS.ErrnoException & { code: string }));
  }
}

/** A server that refused this service's credentials: the one start-up line says which settings to look at. */
export class NatsLoginRefusedError extends BackendRefusal {
  constructor(access: NatsAccess, error: unknown) {
    const cause = (error as Error).message;
    super(
      access.auth.kind === 'none'
        ? `asks for credentials and none were given (${cause}): set NATS_USER and NATS_PASSWORD, NATS_TOKEN, NATS_NKEY_SEED_FILE or NATS_CREDS_FILE`
        : `refused the credentials in ${CREDENTIAL_SETTINGS[access.auth.kind]} (${cause})`,
    );
  }
}

const CREDENTIAL_SETTINGS = {
  user: 'NATS_USER and NATS_PASSWORD',
  token: 'NATS_TOKEN',
  nkey: 'NATS_NKEY_SEED_FILE',
  creds: 'NATS_CREDS_FILE',
} as const;

/** Whether the server refused to let the client in (wrong or missing credentials, or expired ones). */
export function isRefusedLogin(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code;
  return (
    code === ErrorCode.AuthorizationViolation ||
    code === ErrorCode.AuthenticationExpired ||
    code === ErrorCode.AuthenticationTimeout ||
    code === ErrorCode.AccountExpired
  );
}
