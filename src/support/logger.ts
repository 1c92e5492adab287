import type { FastifyBaseLogger } from 'fastify';
import { type DestinationStream, type Logger, pino } from 'pino';
import { BatchedLines } from './batched-lines.js';
import { redactSecrets, redactSecretsIn } from './secret-redaction.js';

/**
 * Paths whose values never reach a log line: credentials in headers, raw keys, webhook secrets.
 * Fastify's request serializer logs no headers; these guard anything that logs a request or key whole.
 */
const redact = {
  paths: [
    'req.headers.authorization',
    'headers.authorization',
    'authorization',
    '*.authorization',
    'key',
    '*.key',
    'raw_key',
    'secret',
    '*.secret',
    'client_secret',
    '*.client_secret',
    'headers["nature-client-secret"]',
    'req.headers["nature-client-secret"]',
  ],
  censor: '[redacted]',
};

/**
 * A request as logged: method and path only. Query strings can carry personal data (an external id
 * filter) or a key pasted where it does not belong, so they never reach a log line.
 */
function requestSerializer(request: { method?: string; url?: string; id?: string }) {
  return { method: request.method, url: request.url === undefined ? undefined : redactSecrets(pathOf(request.url)) };
}

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * Beyond the named paths, any string shaped like a credential, anywhere in a line (a key pasted into a path, an
 * error message quoting input), is redacted: the fields by `formatters.log` (errors once serialized), the message
 * by `hooks.logMethod`.
 */
export function createLogger(level: string, destination: DestinationStream = asyncStdout()): Logger {
  return pino(
    {
      level,
      redact,
      serializers: { req: requestSerializer, err: (error: Error) => redactSecretsIn(pino.stdSerializers.err(error)) },
      formatters: { log: (object) => redactSecretsIn(object) },
      hooks: {
        logMethod(args, method) {
          method.apply(this, args.map((arg) => (typeof arg === 'string' ? redactSecrets(arg) : arg)) as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
}

/**
 * Standard output, written asynchronously and in batches (batched-lines.ts): a log line is queued, not a write
 * system call on the request's path. What is queued is written when the process exits (process.exit included); a
 * SIGKILL loses the last lines.
 */
function asyncStdout(): DestinationStream {
  return new BatchedLines(() => pino.destination({ dest: 1, sync: false }));
}

/** What the line of an answered request says (request-log.ts). */
export interface RequestLine {
  reqId: string;
  method: string;
  /** As the request named it: its query is dropped and a credential pasted in its path redacted, as the `req` serializer does. */
  url: string;
  statusCode: number;
  responseTime: number;
}

/**
 * Writes the `request completed` line at info level, the same bytes `logger.info` writes for these fields (the unit
 * test holds them equal), but without pino's per-line work: the `logMethod` hook, the walk of every field for
 * credentials (these fields are known to hold none but the path, redacted here), the serializers. On a GET that
 * work cost more than the rest of the request's hooks.
 */
export function requestLineWriter(logger: Logger): (line: RequestLine) => void {
  const fields = logger as unknown as Record<symbol, unknown>;
  const stream = fields[pino.symbols.streamSym] as DestinationStream;
  // The base fields (pid, hostname) as pino writes them after the time.
  const bindings = fields[pino.symbols.chindingsSym] as string;
  return ({ reqId, method, url, statusCode, responseTime }) => {
    if (!logger.isLevelEnabled('info')) return;
    const path = redactSecrets(pathOf(url));
    stream.write(
      `{"level":30,"time":${Date.now()}${bindings},"reqId":${quoted(reqId)},"req":{"method":${quoted(method)},"url":${quoted(path)}},` +
        `"res":{"statusCode":${statusCode}},"responseTime":${responseTime},"msg":"request completed"}\n`,
    );
  };
}

/**
 * JSON.stringify of a string, skipped for the ids, methods and paths that hold nothing it escapes (nearly all):
 * quotes, backslashes, control characters, surrogates.
 */
function quoted(text: string): string {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code === 0x22 || code === 0x5c || (code >= 0xd800 && code <= 0xdfff)) return JSON.stringify(text);
  }
  return `"${text}"`;
}

type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

/**
 * A request's logger (fastify's request.log: the parent's child with the request id), made only once a line at an
 * enabled level is logged: most requests log only their request line, which needs none. pino makes each child by
 * serialising its bindings through the redaction paths, a visible share of a GET's CPU.
 */
export class LazyChildLogger implements FastifyBaseLogger {
  private made: Logger | undefined;

  constructor(
    private readonly parent: Logger,
    private readonly bindings: pino.Bindings,
    private readonly options: pino.ChildLoggerOptions,
  ) {}

  get level(): string {
    return (this.made ?? this.parent).level;
  }

  set level(level: string) {
    this.logger().level = level;
  }

  fatal(...args: unknown[]): void {
    this.log('fatal', args);
  }

  error(...args: unknown[]): void {
    this.log('error', args);
  }

  warn(...args: unknown[]): void {
    this.log('warn', args);
  }

  info(...args: unknown[]): void {
    this.log('info', args);
  }

  debug(...args: unknown[]): void {
    this.log('debug', args);
  }

  trace(...args: unknown[]): void {
    this.log('trace', args);
  }

  silent(): void {}

  child(bindings: pino.Bindings, options?: pino.ChildLoggerOptions): FastifyBaseLogger {
    return this.logger().child(bindings, options);
  }

  private log(level: LevelName, args: unknown[]): void {
    if ((this.made ?? this.parent).isLevelEnabled(level)) (this.logger()[level] as (...line: unknown[]) => void)(...args);
  }

  private logger(): Logger {
    this.made ??= this.parent.child(this.bindings, this.options);
    return this.made;
  }
}
