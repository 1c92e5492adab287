import { BackendTimeoutError } from './backend-timeout.js';
import { urlHosts, urlSecrets } from './backend-urls.js';

/** A failure the operator can fix (a busy port, a read-only data directory, …): one line, never a stack trace. */
export class OperatorError extends Error {
  override readonly name = 'OperatorError';
}

interface CodedError {
  code: string;
  message: string;
}

function hasCode(error: unknown): error is CodedError {
  return error instanceof Error && typeof (error as Partial<CodedError>).code === 'string';
}

/** Who this process runs as, where permissions decide. */
export const currentUser = () => `uid ${process.getuid?.() ?? 'unknown'}`;

/** What a file-system error code means for `subject` ("the data directory /srv/data", "/srv/data/keys.db"). */
export function fileProblem(subject: string, error: CodedError): string {
  switch (error.code) {
    case 'ENOENT':
      return `${subject} does not exist (ENOENT)`;
    case 'ENOTDIR':
      return `${subject} is not a directory (ENOTDIR)`;
    case 'EEXIST':
      return `${subject} is a file, not a directory (EEXIST)`;
    case 'EROFS':
      return `${subject} is on a read-only file system (EROFS)`;
    case 'EACCES':
    case 'EPERM':
      return `${subject} is not readable and writable by this user (${currentUser()}) (${error.code})`;
    default:
      return `${subject} cannot be used (${error.code}: ${error.message})`;
  }
}

/** What a SQLite error code means for `subject` (a database file, or "a database in /srv/data"). */
export function databaseProblem(subject: string, error: CodedError): string {
  const cause = `(${error.code}: ${error.message})`;
  if (error.code === 'SQLITE_BUSY' || error.code === 'SQLITE_LOCKED')
    return `${subject} is locked by another process ${cause}; stop that process, then try again`;
  if (error.code === 'SQLITE_NOTADB' || error.code.startsWith('SQLITE_CORRUPT'))
    return `${subject} is damaged or not a SQLite database ${cause}; restore it from a backup`;
  return `${subject} cannot be opened for reading and writing ${cause}`;
}

/** Why the HTTP server could not listen on `host`:`port`, or undefined for a fault of ours. */
export function listenProblem(error: unknown, host: string, port: number): string | undefined {
  if (!hasCode(error)) return undefined;
  switch (error.code) {
    case 'EADDRINUSE':
      return `port ${port} on ${host} is already in use (EADDRINUSE); stop the other process or set another PORT`;
    case 'EACCES':
      return `no permission to listen on ${host}:${port} (EACCES); ports below 1024 need privileges, set another PORT`;
    case 'EADDRNOTAVAIL':
      return `HOST=${host} is not an address of this machine (EADDRNOTAVAIL)`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `HOST=${host} does not resolve to an address (${error.code})`;
    default:
      return undefined;
  }
}

/**
 * The one line that explains why the stores in `dataDir` could not be opened, when the operator can fix
 * it; undefined otherwise (a fault of ours, or a backend that does not answer, reported as such).
 */
export function storeProblem(error: unknown, dataDir: string): string | undefined {
  if (error instanceof OperatorError) return error.message;
  if (!hasCode(error)) return undefined;
  if (error.code.startsWith('SQLITE_')) return databaseProblem(`a database in ${dataDir}`, error);
  if ('path' in error && typeof error.path === 'string') return fileProblem(error.path, error);
  return undefined;
}

/** A message as one line: control characters (a newline in a name, say) are escaped. */
export function oneLine(message: string): string {
  return message.replace(/\p{Cc}/gu, (character) => JSON.stringify(character).slice(1, -1));
}

/**
 * Why a backend did not answer at start-up, in one line that names it and its host and never the URL's
 * credentials (the driver's message is scrubbed of them too).
 */
export function backendProblem(backend: { name: string; variable: string; url: string }, error: unknown, timeoutMs: number): string {
  const where = `${backend.name} at ${urlHosts(backend.url)} (${backend.variable})`;
  if (error instanceof BackendTimeoutError)
    return `${where} did not answer within ${timeoutMs} ms; check the host and port, and that the server runs`;
  if (error instanceof BackendRefusal) return `${where} ${error.message}`;
  // Not the server's doing (a key file of its settings that cannot be read, say): said as it is.
  if (error instanceof OperatorError) return error.message;
  let message = error instanceof Error ? error.message : String(error);
  for (const secret of urlSecrets(backend.url)) message = message.split(secret).join('***');
  return `${where} did not answer: ${message}`;
}

/**
 * A backend server that answered and refused this service, or that the service refuses (its credentials, its
 * version, how it is deployed): the message goes on from the server's name.
 */
export class BackendRefusal extends OperatorError {}
