import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import type { ConnectionOptions } from 'node:tls';
import type { PostgresAccess } from '../../settings/config.js';
import { urlHosts } from '../../support/backend-urls.js';
import { fileProblem, OperatorError } from '../../support/operator-errors.js';

/** What the driver gets: the URL without the parameters read here, and the options they became. */
export interface ConnectionOptionsOf {
  url: string;
  ssl?: false | 'allow' | 'prefer' | 'require' | ConnectionOptions;
  pass?: string;
}

const SSL_MODES = ['disable', 'allow', 'prefer', 'require', 'verify-ca', 'verify-full'] as const;
type SslMode = (typeof SSL_MODES)[number];

/**
 * The driver's options for `access`, libpq's meaning kept for the URL parameters the driver reads otherwise.
 * Postgres.js verifies any `sslmode=verify-*` against Node's CA list and host, and sends an `sslrootcert` to the
 * server as a run-time parameter (which the server refuses); here `sslrootcert` is a CA file read once, verify-ca
 * checks the chain without the host, and `require` with a CA file is verify-ca, as in libpq. The password file is
 * read once as well (a trailing newline dropped, as the Docker secrets it is made for end): a file that cannot be
 * read stops start-up naming its setting. The options hold the password: they go to the driver, never to a log.
 */
export function connectionOptionsOf(access: PostgresAccess): ConnectionOptionsOf {
  const [base, query = ''] = splitQuery(access.url);
  const parameters = new URLSearchParams(query);
  const mode = sslModeOf(parameters.get('sslmode'));
  const rootCert = parameters.get('sslrootcert');
  for (const parameter of ['sslcert', 'sslkey', 'sslpassword', 'sslcrl'])
    if (parameters.has(parameter))
      throw new OperatorError(`POSTGRES_URL ${parameter} is not supported: the service logs in with a password`);
  parameters.delete('sslmode');
  parameters.delete('sslrootcert');
  const rest = parameters.toString();
  const options: ConnectionOptionsOf = { url: rest === '' ? base : `${base}?${rest}` };
  const ssl = sslOf(mode, rootCert);
  if (typeof ssl === 'object' && ssl.checkServerIdentity === undefined) ssl.host = verifiedHost(access.url);
  if (ssl !== undefined) options.ssl = ssl;
  if (access.passwordFile !== undefined) options.pass = readPassword(access.passwordFile);
  return options;
}

/** The URL before its query, and the query (without `?`); a fragment is none of libpq's. */
function splitQuery(url: string): [string, string?] {
  const at = url.indexOf('?');
  return at === -1 ? [url] : [url.slice(0, at), url.slice(at + 1)];
}

function sslModeOf(given: string | null): SslMode | undefined {
  if (given === null) return undefined;
  if ((SSL_MODES as readonly string[]).includes(given)) return given as SslMode;
  throw new OperatorError(`POSTGRES_URL sslmode=${given} is not one of ${SSL_MODES.join(', ')}`);
}

/** TLS as libpq's `sslmode` and `sslrootcert` ask; `system` is Node's own CA list. */
function sslOf(mode: SslMode | undefined, rootCert: string | null): ConnectionOptionsOf['ssl'] {
  const ca = rootCert === null || rootCert === 'system' ? {} : { ca: readSetting('POSTGRES_URL sslrootcert', rootCert) };
  const verified = mode === 'verify-full' || mode === 'verify-ca' || (mode === 'require' && 'ca' in ca) || rootCert === 'system';
  if (!verified) return mode === 'disable' ? false : mode;
  if (mode === 'verify-full' || rootCert === 'system') return { ...ca, rejectUnauthorized: true };
  return { ...ca, rejectUnauthorized: true, checkServerIdentity: () => undefined };
}

/**
 * The host a verify-full certificate must name. The driver names the host to TLS only when it is a name, and Node
 * then checks an address against "localhost": given here, an address is checked as itself. With several hosts the
 * driver names each that is a name as it tries it; an address among them could not be told apart, so is refused.
 */
function verifiedHost(url: string): string {
  const hosts = urlHosts(url)
    .split(',')
    .map((host) => host.replace(/:\d*$/, '').replace(/^\[(.*)\]$/, '$1'));
  if (hosts.length > 1 && hosts.some((host) => isIP(host) !== 0))
    throw new OperatorError(
      'POSTGRES_URL sslmode=verify-full with several hosts needs host names, not addresses, for the certificates to be checked against',
    );
  return hosts[0]!;
}

function readPassword(file: string): string {
  const password = readSetting('POSTGRES_PASSWORD_FILE', file).replace(/(\r?\n)+$/, '');
  if (password === '') throw new OperatorError(`POSTGRES_PASSWORD_FILE ${file} is empty`);
  return password;
}

/** A file `setting` names, or an OperatorError saying which and why not. */
function readSetting(setting: string, file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    throw new OperatorError(fileProblem(`${setting} ${file}`, error as NodeJS.ErrnoException & { code: string }));
  }
}
