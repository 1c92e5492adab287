import { join, resolve } from 'node:path';
import ipaddr from 'ipaddr.js';
import { z } from 'zod';
import { NEWEST_SCORING_VERSION, scoringVersions } from '../scoring/scorers.js';
import { withoutCredentials } from '../support/backend-urls.js';

const DURATION = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;

/** "5s,5m,30m" → [5000, 300000, 1800000]. */
const durations = z
  .string()
  .refine(
    (value) => value.split(',').every((part) => DURATION.test(part.trim())),
    'must be a comma-separated list of durations such as 5s,5m,2h',
  )
  .transform((value) =>
    value.split(',').map((part) => {
      const [, amount, unit] = DURATION.exec(part.trim())!;
      return Math.round(Number(amount) * UNIT_MS[unit as keyof typeof UNIT_MS]);
    }),
  );

/**
 * "7d" → 604800000: how long a stream may keep a message, from 6 h (twice the longest delay level, on which a
 * retry waits three hours in the delay stream) to a year.
 */
const duration = z
  .string()
  .regex(/^(\d+)(h|d)$/, 'must be a duration in hours or days such as 48h or 7d')
  .transform((value) => {
    const [, amount, unit] = /^(\d+)(h|d)$/.exec(value)!;
    return Number(amount) * (unit === 'd' ? 86_400_000 : 3_600_000);
  })
  .pipe(
    z
      .number()
      .min(6 * 3_600_000, 'must be at least 6h (a retry waits up to 3 h in the delay stream)')
      .max(366 * 86_400_000, 'must be at most 366d'),
  );

/** "https://api.example.com" or "http://10.0.0.5:8080/": a scheme, a host and a port, and no path beyond "/". */
function isOrigin(value: string): boolean {
  if (!URL.canParse(value) || /[?#]/.test(value)) return false;
  const url = new URL(value);
  return ['http:', 'https:'].includes(url.protocol) && url.username === '' && url.password === '' && url.pathname === '/';
}

/** A setting that is a whole number from min to max, written in digits only (no "1e3", no "10.0"). */
const wholeNumber = (min: number, max: number) =>
  z.string().regex(/^\d+$/, 'must be a whole number').transform(Number).pipe(z.number().int().min(min).max(max));

/** An address, alone or after a display name, on one line: what a From header holds. */
const MAILBOX = /^(?:[^<>\r\n]+ )?<[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+>$|^[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+$/;

/** NATURE_SMTP_URL read: smtp:// or smtps://, a host, a port, user:password or neither, nothing more; else undefined. */
function smtpRelayOf(value: string): SmtpRelay | undefined {
  if (!URL.canParse(value) || /[?#]/.test(value)) return undefined;
  const url = new URL(value);
  if (!['smtp:', 'smtps:'].includes(url.protocol) || url.hostname === '' || !['', '/'].includes(url.pathname)) return undefined;
  if ((url.username === '') !== (url.password === '')) return undefined;
  const secure = url.protocol === 'smtps:';
  try {
    return {
      host: url.hostname.replace(/^\[|\]$/g, ''),
      // The relay's usual ports: submission with STARTTLS, submission over TLS.
      port: url.port === '' ? (secure ? 465 : 587) : Number(url.port),
      secure,
      auth: url.username === '' ? undefined : { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) },
    };
  } catch {
    // A % that starts no escape.
    return undefined;
  }
}

const schema = z.object({
  PORT: wholeNumber(1, 65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  // Behind a proxy the Host a request carries is the proxy's view, not the callers': the docs name this origin instead.
  NATURE_PUBLIC_URL: z
    .string()
    .refine(
      isOrigin,
      'must be the http:// or https:// origin callers reach the service at, such as https://api.example.com (no path, query or credentials)',
    )
    .transform((value) => new URL(value).origin)
    .optional(),
  NATURE_DATA_DIR: z.string().min(1).default('./data'),
  // Wraps the data keys; kept outside the stores, so a copy of them opens nothing (docs/operations.md, "Master key").
  NATURE_MASTER_KEY_FILE: z.string().min(1).optional(),
  NATURE_EVENT_STORE: z.enum(['sqlite', 'eventstoredb', 'postgres']).default('sqlite'),
  // The schemes @eventstore/db-client 6 parses; kurrentdb:// and kdb:// are @kurrent/kurrentdb-client's.
  EVENTSTORE_URL: z
    .string()
    .regex(
      /^(esdb|esdb\+discover):\/\/\S+$/,
      'must be an esdb:// or esdb+discover:// URL such as esdb://127.0.0.1:2113?tls=false (the only schemes the EventStoreDB client reads)',
    )
    .optional(),
  // The longest an append may take, its resends after a lost reply or a leader change included (docs/operations.md, "Production deployment").
  EVENTSTORE_APPEND_RETRY_MS: wholeNumber(1_000, 300_000).default(20_000),
  NATURE_READ_MODELS: z.enum(['sqlite', 'mongodb', 'postgres']).default('sqlite'),
  // The schemes libpq and the postgres driver read; several hosts (host1,host2) are a failover list.
  POSTGRES_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\/\S+$/, 'must be a URL such as postgres://nature@127.0.0.1:5432/nature')
    .refine(isPostgresUrl, 'is not a URL the driver can read: check each host and port, and percent-encode @ : / in a password')
    .optional(),
  // The password in a file of its own (a Docker or Kubernetes secret), so that it is in neither the URL nor the environment.
  POSTGRES_PASSWORD_FILE: z.string().min(1).optional(),
  MONGODB_URL: z
    .string()
    .regex(/^mongodb(\+srv)?:\/\/\S+$/, 'must be a URL such as mongodb://127.0.0.1:27017')
    .optional(),
  // A standalone server has no failover and no transactions: accepted only when the operator says so (docs/operations.md, "Production deployment").
  NATURE_MONGODB_ALLOW_WEAK_WRITES: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  NATURE_BUS: z.enum(['local', 'nats']).default('local'),
  // The nats client for Node speaks TCP only (ws:// is nats.ws's) and drops credentials given in the URL.
  NATS_URL: z
    .string()
    .regex(
      /^(nats|tls):\/\/\S+$/,
      'must be a nats:// or tls:// URL such as nats://127.0.0.1:4222 (the NATS client for Node does not speak WebSocket)',
    )
    .refine(
      (url) => !/^[a-z]+:\/\/[^/?#]*@/.test(url),
      'must not carry credentials (the NATS client ignores them): give them in NATS_USER and NATS_PASSWORD, NATS_TOKEN, NATS_NKEY_SEED_FILE or NATS_CREDS_FILE',
    )
    .optional(),
  NATS_USER: z.string().optional(),
  NATS_PASSWORD: z.string().optional(),
  NATS_TOKEN: z.string().optional(),
  NATS_NKEY_SEED_FILE: z.string().optional(),
  NATS_CREDS_FILE: z.string().optional(),
  NATS_TLS_CA_FILE: z.string().optional(),
  NATS_TLS_CERT_FILE: z.string().optional(),
  NATS_TLS_KEY_FILE: z.string().optional(),
  NATS_STREAM_REPLICAS: z
    .string()
    .regex(/^[1-5]$/, 'must be a whole number from 1 to 5 (the servers of the NATS cluster that keep each stream)')
    .transform(Number)
    .default(1),
  // Bounds on the work-queue streams, so a stalled consumer cannot fill JetStream's disk (docs/operations.md, "Running with NATS JetStream").
  NATS_STREAM_MAX_BYTES: wholeNumber(1_048_576, 1_099_511_627_776).default(1_073_741_824),
  NATS_STREAM_MAX_AGE: duration.prefault('7d'),
  NATURE_SQLITE_SYNCHRONOUS: z.enum(['FULL', 'NORMAL']).default('FULL'),
  NATURE_BACKEND_TIMEOUT_MS: wholeNumber(100, 300_000).default(10_000),
  NATURE_CAREERS_CHECK_MS: wholeNumber(100, 3_600_000).default(5000),
  // How long the request log keeps each API request (docs/operations.md, "Request logs").
  NATURE_REQUEST_LOG_RETENTION_DAYS: wholeNumber(1, 3660).default(30),
  NATURE_WEBHOOK_RETRY_SCHEDULE: durations.prefault('5s,5m,30m,2h,5h,10h,10h'),
  NATURE_WEBHOOK_TIMEOUT_MS: wholeNumber(100, 60_000).default(10_000),
  // Unset, it follows where the server is (webhookAllowPrivate): docs/operations.md, "Configuration".
  NATURE_WEBHOOK_ALLOW_PRIVATE: z.enum(['sandbox', 'never']).optional(),
  // Longer than a MongoDB election (10–12 s), so a leader rides one out instead of stepping down.
  NATURE_LEADER_LEASE_MS: wholeNumber(300, 600_000).default(30_000),
  // How often the leader looks for open assessments past their expiry, to record and announce them (nature.assessment.expired).
  NATURE_EXPIRY_CHECK_MS: wholeNumber(100, 3_600_000).default(15_000),
  // Unset, the account's plan decides (src/domain/plans.ts); set, each replaces its figure of every plan.
  NATURE_RATE_LIMIT_PER_SECOND: wholeNumber(1, 1_000_000).optional(),
  NATURE_RATE_LIMIT_BURST: wholeNumber(1, 1_000_000).optional(),
  // Admission control (docs/operations.md, "Admission control"): writes under way at once, past which one more gets 503.
  NATURE_MAX_WRITES_IN_FLIGHT: wholeNumber(1, 1_000_000).default(512),
  NATURE_SCORING_VERSION: z.enum(scoringVersions).default(NEWEST_SCORING_VERSION),
  // A live key reaches real people's data: an agent may use one over MCP only where the operator says so (docs/mcp.md).
  NATURE_MCP_LIVE_KEYS: z.enum(['allow', 'refuse']).default('refuse'),
  // How long a client may take to send its request, and keep an idle connection (docs/operations.md, "Limits on each request").
  NATURE_HEADERS_TIMEOUT_MS: wholeNumber(1_000, 600_000).default(10_000),
  NATURE_REQUEST_TIMEOUT_MS: wholeNumber(1_000, 600_000).default(30_000),
  // Longer than a load balancer's idle time-out (60 s on the usual ones), so the balancer never reuses a connection the server is closing.
  NATURE_KEEP_ALIVE_TIMEOUT_MS: wholeNumber(1_000, 600_000).default(72_000),
  // Silence on a connection while it is answered: longer than any request takes (EVENTSTORE_APPEND_RETRY_MS, say).
  NATURE_CONNECTION_TIMEOUT_MS: wholeNumber(1_000, 3_600_000).default(120_000),
  // Mail through a relay (docs/operations.md, "Mail"); unset, the dashboard and `nature users` show links instead.
  NATURE_SMTP_URL: z
    .string()
    .refine(
      (value) => smtpRelayOf(value) !== undefined,
      'must be smtp://[user:password@]host[:port] (STARTTLS when the relay offers it) or smtps://… (TLS from the start), with no path or query; percent-encode @ : / in the password',
    )
    .optional(),
  NATURE_MAIL_FROM: z
    .string()
    .regex(MAILBOX, 'must be the address mail is sent from, such as dashboard@example.com or "Nature <dashboard@example.com>"')
    .optional(),
  // Each wait on the relay: connecting (TLS included), its greeting, each reply.
  NATURE_SMTP_TIMEOUT_MS: wholeNumber(1_000, 300_000).default(10_000),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export interface Config {
  port: number;
  host: string;
  /** The origin callers reach the service at (NATURE_PUBLIC_URL, no trailing slash); unset, each request's own. */
  publicUrl: string | undefined;
  /** Absolute. */
  dataDir: string;
  /** Absolute: the master key that wraps the data keys (NATURE_MASTER_KEY_FILE, else master.key in the data directory). */
  masterKeyFile: string;
  /** On EventStoreDB, an append answers or fails within `appendRetryMs`, resends included. */
  eventStore: { kind: 'sqlite' } | { kind: 'eventstoredb'; url: string; appendRetryMs: number } | ({ kind: 'postgres' } & PostgresAccess);
  /** The read models, and the stores beside them (idempotency, data keys, API keys, the account). */
  readModels: { kind: 'sqlite' } | { kind: 'mongodb'; url: string } | ({ kind: 'postgres' } & PostgresAccess);
  /** Whether a standalone MongoDB server is accepted (no failover, no transactions: commits are not fenced atomically). */
  mongodbAllowWeakWrites: boolean;
  sqliteSynchronous: 'FULL' | 'NORMAL';
  /** How long each backend server may take to answer at start-up before the process gives up on it. */
  backendTimeoutMs: number;
  /** How often a server asks whether `nature careers import` installed a new catalogue. */
  careersCheckMs: number;
  /** How long the request log keeps a request before the leader prunes it. */
  requestLogRetentionMs: number;
  /**
   * On NATS: how to reach and log in to it, `streamReplicas` copies of each stream (1 on a single server; 3 is
   * usual in a cluster), and the bounds of the work-queue streams.
   */
  bus:
    | { kind: 'local' }
    | ({ kind: 'postgres' } & PostgresAccess)
    | ({ kind: 'nats' } & NatsAccess & { streamReplicas: number; streamLimits: { maxBytes: number; maxAgeMs: number } });
  /**
   * `allowPrivate`: whether sandbox endpoints may be on loopback (`sandbox`) or must be public like production's
   * (`never`). Private networks and link-local addresses are refused whatever it says.
   */
  webhooks: { retryScheduleMs: number[]; timeoutMs: number; allowPrivate: 'sandbox' | 'never' };
  /** How long a replica leads (runs projections, reactors and webhook delivery) without renewing its lease. */
  leaderLeaseMs: number;
  /** How often the leader records open assessments past their expiry as expired: the longest nature.assessment.expired lags. */
  expiryCheckMs: number;
  /** Per API key (and per client address before a key is known): figures that replace the plan's, where set. */
  rateLimit: { perSecond: number | undefined; burst: number | undefined };
  /** Writes under way at once in the process; one more is answered 503 (src/http/admission.ts). */
  maxWritesInFlight: number;
  /** What new completions are scored with. */
  scoringVersion: string;
  /** Whether live (production) keys may be used at /v1/mcp; sandbox keys always may. */
  mcpLiveKeys: boolean;
  httpTimeouts: HttpTimeouts;
  /** The relay mail goes through (NATURE_SMTP_URL); none: links are shown to whoever makes them. */
  mail: MailSettings | undefined;
  logLevel: z.infer<typeof schema>['LOG_LEVEL'];
}

/**
 * How long a client may take: to send all its headers, and its whole request (408 request_timeout, then the
 * connection closes); to send another request on a kept-alive connection; to let a connection fall silent while
 * its request is answered (then it is closed).
 */
export interface HttpTimeouts {
  headersMs: number;
  requestMs: number;
  keepAliveMs: number;
  connectionMs: number;
}

/** Where mail is sent: `secure` is TLS from the start (smtps://); otherwise STARTTLS when the relay offers it. */
export interface SmtpRelay {
  host: string;
  port: number;
  secure: boolean;
  auth: { user: string; pass: string } | undefined;
}

export interface MailSettings {
  relay: SmtpRelay;
  /** The From of every message (NATURE_MAIL_FROM). */
  from: string;
  /** Each wait on the relay, in ms (NATURE_SMTP_TIMEOUT_MS). */
  timeoutMs: number;
}

/** How the service logs in to NATS: at most one way; TLS with any of them (or alone). */
export type NatsAuth =
  | { kind: 'none' }
  | { kind: 'user'; user: string; password: string }
  | { kind: 'token'; token: string }
  | { kind: 'nkey'; seedFile: string }
  | { kind: 'creds'; credsFile: string };

export interface NatsAccess {
  url: string;
  auth: NatsAuth;
  /** Files in PEM: the CA that signed the server's certificate, and this client's certificate and key (mutual TLS). */
  tls: { caFile?: string; certFile?: string; keyFile?: string } | undefined;
}

/** Settings whose values are secrets: a message about them never shows the value. */
const SECRET_SETTINGS: ReadonlySet<string> = new Set(['NATS_PASSWORD', 'NATS_TOKEN']);

/**
 * A setting's value as a message shows it: a URL's password, or a secret setting, never reaches the terminal or a log.
 * A URL still holding an @ once its credentials are removed has them where no scheme marks them: it is hidden whole.
 */
function shownValue(name: string, value: string | undefined): string {
  if (value === undefined) return 'undefined';
  if (SECRET_SETTINGS.has(name)) return '(hidden)';
  const shown = withoutCredentials(value);
  return name.endsWith('_URL') && shown.includes('@') ? '(hidden)' : JSON.stringify(shown);
}

/** A setting that stops start-up; its message is one line naming the setting. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** Reads the configuration once from the environment. Empty variables count as unset. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const given = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined && value !== ''));
  const parsed = schema.safeParse(given);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = String(issue.path[0]);
    throw new ConfigError(`configuration error: ${name}=${shownValue(name, env[name])} ${issue.message}`);
  }
  const settings = parsed.data;
  const required: [boolean, string, string][] = [
    [settings.NATURE_EVENT_STORE === 'eventstoredb', 'EVENTSTORE_URL', 'NATURE_EVENT_STORE=eventstoredb'],
    [settings.NATURE_EVENT_STORE === 'postgres', 'POSTGRES_URL', 'NATURE_EVENT_STORE=postgres'],
    [settings.NATURE_READ_MODELS === 'mongodb', 'MONGODB_URL', 'NATURE_READ_MODELS=mongodb'],
    [settings.NATURE_READ_MODELS === 'postgres', 'POSTGRES_URL', 'NATURE_READ_MODELS=postgres'],
    [settings.NATURE_BUS === 'nats', 'NATS_URL', 'NATURE_BUS=nats'],
    [settings.NATURE_SMTP_URL !== undefined, 'NATURE_MAIL_FROM', 'NATURE_SMTP_URL is set'],
  ];
  for (const [chosen, name, because] of required) {
    if (chosen && settings[name as keyof typeof settings] === undefined) {
      throw new ConfigError(`configuration error: ${name} is required when ${because}`);
    }
  }
  // The headers are part of the request: Node refuses a longer wait for them than for the whole.
  if (settings.NATURE_HEADERS_TIMEOUT_MS > settings.NATURE_REQUEST_TIMEOUT_MS) {
    throw new ConfigError(
      `configuration error: NATURE_HEADERS_TIMEOUT_MS="${settings.NATURE_HEADERS_TIMEOUT_MS}" must be at most NATURE_REQUEST_TIMEOUT_MS (${settings.NATURE_REQUEST_TIMEOUT_MS}): the headers are part of the request`,
    );
  }
  return {
    port: settings.PORT,
    host: settings.HOST,
    publicUrl: settings.NATURE_PUBLIC_URL,
    dataDir: resolve(settings.NATURE_DATA_DIR),
    masterKeyFile: resolve(settings.NATURE_MASTER_KEY_FILE ?? join(settings.NATURE_DATA_DIR, 'master.key')),
    eventStore: eventStoreOf(settings),
    readModels: readModelsOf(settings),
    mongodbAllowWeakWrites: settings.NATURE_MONGODB_ALLOW_WEAK_WRITES,
    sqliteSynchronous: settings.NATURE_SQLITE_SYNCHRONOUS,
    backendTimeoutMs: settings.NATURE_BACKEND_TIMEOUT_MS,
    careersCheckMs: settings.NATURE_CAREERS_CHECK_MS,
    requestLogRetentionMs: settings.NATURE_REQUEST_LOG_RETENTION_DAYS * 86_400_000,
    bus:
      settings.NATURE_BUS === 'nats'
        ? {
            kind: 'nats',
            url: settings.NATS_URL!,
            auth: natsAuth(settings),
            tls: natsTls(settings),
            streamReplicas: settings.NATS_STREAM_REPLICAS,
            streamLimits: { maxBytes: settings.NATS_STREAM_MAX_BYTES, maxAgeMs: settings.NATS_STREAM_MAX_AGE },
          }
        : embeddedBusOf(settings),
    webhooks: {
      retryScheduleMs: settings.NATURE_WEBHOOK_RETRY_SCHEDULE,
      timeoutMs: settings.NATURE_WEBHOOK_TIMEOUT_MS,
      allowPrivate: settings.NATURE_WEBHOOK_ALLOW_PRIVATE ?? webhookAllowPrivate(settings),
    },
    leaderLeaseMs: settings.NATURE_LEADER_LEASE_MS,
    expiryCheckMs: settings.NATURE_EXPIRY_CHECK_MS,
    rateLimit: { perSecond: settings.NATURE_RATE_LIMIT_PER_SECOND, burst: settings.NATURE_RATE_LIMIT_BURST },
    maxWritesInFlight: settings.NATURE_MAX_WRITES_IN_FLIGHT,
    scoringVersion: settings.NATURE_SCORING_VERSION,
    mcpLiveKeys: settings.NATURE_MCP_LIVE_KEYS === 'allow',
    httpTimeouts: {
      headersMs: settings.NATURE_HEADERS_TIMEOUT_MS,
      requestMs: settings.NATURE_REQUEST_TIMEOUT_MS,
      keepAliveMs: settings.NATURE_KEEP_ALIVE_TIMEOUT_MS,
      connectionMs: settings.NATURE_CONNECTION_TIMEOUT_MS,
    },
    mail:
      settings.NATURE_SMTP_URL === undefined
        ? undefined
        : { relay: smtpRelayOf(settings.NATURE_SMTP_URL)!, from: settings.NATURE_MAIL_FROM!, timeoutMs: settings.NATURE_SMTP_TIMEOUT_MS },
    logLevel: settings.LOG_LEVEL,
  };
}

type Settings = z.infer<typeof schema>;

/** Where NATURE_EVENT_STORE keeps the log; its URL is there, loadConfig having checked it. */
function eventStoreOf(settings: Settings): Config['eventStore'] {
  switch (settings.NATURE_EVENT_STORE) {
    case 'eventstoredb':
      return { kind: 'eventstoredb', url: settings.EVENTSTORE_URL!, appendRetryMs: settings.EVENTSTORE_APPEND_RETRY_MS };
    case 'postgres':
      return { kind: 'postgres', ...postgresAccess(settings) };
    default:
      return { kind: 'sqlite' };
  }
}

/**
 * The bus where NATS is not configured (NATURE_BUS=local): beside the log. On a PostgreSQL log, in its database,
 * which every replica shares; a queue in each replica's data directory would split the messages between them.
 */
function embeddedBusOf(settings: Settings): Config['bus'] {
  const eventStore = eventStoreOf(settings);
  return eventStore.kind === 'postgres' ? eventStore : { kind: 'local' };
}

function readModelsOf(settings: Settings): Config['readModels'] {
  switch (settings.NATURE_READ_MODELS) {
    case 'mongodb':
      return { kind: 'mongodb', url: settings.MONGODB_URL! };
    case 'postgres':
      return { kind: 'postgres', ...postgresAccess(settings) };
    default:
      return { kind: 'sqlite' };
  }
}

/** Where the service finds its PostgreSQL server and how it logs in: POSTGRES_URL, and POSTGRES_PASSWORD_FILE when set. */
export interface PostgresAccess {
  url: string;
  passwordFile?: string;
}

/** POSTGRES_URL, and the password file when there is one; a password in both is a configuration error. */
function postgresAccess(settings: Settings): PostgresAccess {
  const { POSTGRES_URL: url, POSTGRES_PASSWORD_FILE: passwordFile } = settings;
  if (passwordFile === undefined) return { url: url! };
  if (/^[a-z]+:\/\/[^/?#@]*:[^/?#@]*@/i.test(url!))
    throw new ConfigError('configuration error: POSTGRES_URL has a password and POSTGRES_PASSWORD_FILE gives one: give it in one of them');
  return { url: url!, passwordFile: resolve(passwordFile) };
}

/**
 * Whether the driver reads `url`: each host a name or a bracketed address with at most a port up to 65535, and the
 * URL with its first host alone a URL (the driver parses it so; a bad one would fail on first use as "Invalid URL").
 */
function isPostgresUrl(url: string): boolean {
  const authority = url.slice(url.indexOf('://') + 3).split(/[?/#]/)[0]!;
  const userinfo = authority.slice(0, authority.lastIndexOf('@') + 1);
  const hosts = authority.slice(userinfo.length).split(',');
  const valid = (host: string) => {
    const match = /^(?:\[[0-9a-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/i.exec(host);
    return match !== null && Number(match[1] ?? 0) <= 65_535;
  };
  // No host at all is libpq's local socket (postgres:///nature).
  if (!(hosts.length === 1 && hosts[0] === '') && !hosts.every(valid)) return false;
  return URL.canParse(url.replace(authority, `${userinfo}${hosts[0]}`));
}

/** localhost, a name under it, or a loopback address (127/8, ::1, ::ffff:127.0.0.1): a host only this machine reaches. */
function isLoopbackHost(host: string): boolean {
  const name = host.replace(/^\[|\]$/g, '').toLowerCase();
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  return ipaddr.isValid(name) && ipaddr.process(name).range() === 'loopback';
}

/**
 * Without NATURE_WEBHOOK_ALLOW_PRIVATE: loopback deliveries only on a server that is itself local (its public URL,
 * else the interface it listens on, is loopback). On any other, anyone who may mint a sandbox key would have it
 * POST to the services on its own loopback.
 */
function webhookAllowPrivate(settings: Settings): 'sandbox' | 'never' {
  const host = settings.NATURE_PUBLIC_URL === undefined ? settings.HOST : new URL(settings.NATURE_PUBLIC_URL).hostname;
  return isLoopbackHost(host) ? 'sandbox' : 'never';
}

/** The one way of logging in to NATS the settings give; two at once, or half of one, is a configuration error. */
function natsAuth(settings: Settings): NatsAuth {
  const {
    NATS_USER: user,
    NATS_PASSWORD: password,
    NATS_TOKEN: token,
    NATS_NKEY_SEED_FILE: seedFile,
    NATS_CREDS_FILE: credsFile,
  } = settings;
  if ((user === undefined) !== (password === undefined))
    throw new ConfigError('configuration error: NATS_USER and NATS_PASSWORD go together: give both or neither');
  const given = [
    user !== undefined && 'NATS_USER/NATS_PASSWORD',
    token !== undefined && 'NATS_TOKEN',
    seedFile !== undefined && 'NATS_NKEY_SEED_FILE',
    credsFile !== undefined && 'NATS_CREDS_FILE',
  ].filter((name) => name !== false);
  if (given.length > 1) throw new ConfigError(`configuration error: ${given.join(' and ')} are two ways of logging in to NATS: give one`);
  if (user !== undefined) return { kind: 'user', user, password: password! };
  if (token !== undefined) return { kind: 'token', token };
  if (seedFile !== undefined) return { kind: 'nkey', seedFile: resolve(seedFile) };
  if (credsFile !== undefined) return { kind: 'creds', credsFile: resolve(credsFile) };
  return { kind: 'none' };
}

function natsTls(settings: Settings): NatsAccess['tls'] {
  const { NATS_TLS_CA_FILE: ca, NATS_TLS_CERT_FILE: cert, NATS_TLS_KEY_FILE: key } = settings;
  if ((cert === undefined) !== (key === undefined))
    throw new ConfigError('configuration error: NATS_TLS_CERT_FILE and NATS_TLS_KEY_FILE go together: give both or neither');
  if (ca === undefined && cert === undefined) return undefined;
  return {
    ...(ca !== undefined && { caFile: resolve(ca) }),
    ...(cert !== undefined && { certFile: resolve(cert), keyFile: resolve(key!) }),
  };
}

/** Where the stores are and how they are written: all that an operator command reads of the configuration. */
const STORE_SETTINGS = [
  'NATURE_DATA_DIR',
  'NATURE_MASTER_KEY_FILE',
  'NATURE_EVENT_STORE',
  'EVENTSTORE_URL',
  'EVENTSTORE_APPEND_RETRY_MS',
  'NATURE_READ_MODELS',
  'MONGODB_URL',
  'POSTGRES_URL',
  'POSTGRES_PASSWORD_FILE',
  'NATURE_MONGODB_ALLOW_WEAK_WRITES',
  'NATURE_SQLITE_SYNCHRONOUS',
  'NATURE_BACKEND_TIMEOUT_MS',
  // Read by `nature careers import` to say when servers pick a new catalogue up.
  'NATURE_CAREERS_CHECK_MS',
  // The MongoDB request log's TTL index follows it, whoever opens the store.
  'NATURE_REQUEST_LOG_RETENTION_DAYS',
] as const;

/**
 * The configuration of the stores only, so that a setting the server alone reads (a bad PORT, say) cannot
 * stop an operator command. The other settings keep their defaults, which operator commands never use.
 */
export function loadStoreConfig(env: NodeJS.ProcessEnv = process.env): Config {
  return loadConfig(Object.fromEntries(STORE_SETTINGS.map((name) => [name, env[name]])));
}

/** What `nature users` reads to mail set-up links: the relay, the sender, the timeout. */
const MAIL_SETTINGS = ['NATURE_SMTP_URL', 'NATURE_MAIL_FROM', 'NATURE_SMTP_TIMEOUT_MS'] as const;

/** The mail settings only (undefined without NATURE_SMTP_URL), so that no other setting can stop an operator command. */
export function loadMailConfig(env: NodeJS.ProcessEnv = process.env): MailSettings | undefined {
  return loadConfig(Object.fromEntries(MAIL_SETTINGS.map((name) => [name, env[name]]))).mail;
}
