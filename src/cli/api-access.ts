import { createNatureClient, type NatureClient } from '@nature-profile/client';
import { type Command, InvalidArgumentError } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { type Environment, parseRawKey } from '../domain/api-keys.js';
import { UsageError } from './errors.js';

/** How a command that calls the API reaches it: a key and a server, as any caller would. */
export interface ApiAccess {
  nature: NatureClient;
  baseUrl: string;
  environment: Environment;
}

export interface ApiOptions {
  apiKey?: string;
  baseUrl?: string;
}

/** `value` as an http(s) URL with a host, or undefined: what the commands that speak HTTP take for an address. */
export function httpUrl(value: string): URL | undefined {
  const url = URL.canParse(value) ? new URL(value) : undefined;
  return url !== undefined && (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' ? url : undefined;
}

function baseUrl(value: string): string {
  const url = httpUrl(value);
  if (url === undefined) throw new InvalidArgumentError('A base URL is http(s)://host[:port], such as http://127.0.0.1:8080.');
  return url.href.replace(/\/+$/, '');
}

/** `--api-key` and `--base-url`, for the commands that call the API over HTTP. */
export function withApiOptions(command: Command): Command {
  return command
    .option('--api-key <key>', 'a secret API key (default: NATURE_API_KEY)')
    .option('--base-url <url>', 'where the API is (default: NATURE_BASE_URL, then http://127.0.0.1:$PORT, port 8080)', baseUrl);
}

/** The key and server for `options`, from the flags first, then the environment: secret keys only (see apiAccess). */
export function apiTarget(
  options: ApiOptions,
  env: NodeJS.ProcessEnv,
  { command, writes }: { command: string; writes: boolean },
): { apiKey: string; baseUrl: string; environment: Environment } {
  const apiKey = options.apiKey ?? env.NATURE_API_KEY;
  if (!apiKey) throw new UsageError(`${command} needs an API key: --api-key or NATURE_API_KEY (mint one with \`nature keys create\`)`);
  const kind = parseRawKey(apiKey);
  if (!kind) throw new UsageError('that is not an API key: keys start with test_sk_ or live_sk_');
  if (kind.type === 'pk') throw new UsageError(`${command} needs a secret key (test_sk_…), not a publishable one`);
  const { environment } = kind;
  if (writes && environment === 'live')
    throw new UsageError(`${command} creates data: it runs with a sandbox key (test_sk_…) only, never a production one`);
  const url = options.baseUrl ?? (env.NATURE_BASE_URL ? baseUrl(env.NATURE_BASE_URL) : `http://127.0.0.1:${env.PORT || 8080}`);
  return { apiKey, baseUrl: url, environment };
}

/** A client as the CLI's user agent; see apiTarget for where it points. */
export const userAgent = `nature-cli/${packageJson.version}`;

/**
 * The client for `options`, from the flags first, then the environment. A publishable key cannot read events or
 * write without a client secret, so only secret keys are taken; `writes` refuses a production key too.
 */
export function apiAccess(options: ApiOptions, env: NodeJS.ProcessEnv, use: { command: string; writes: boolean }): ApiAccess {
  const { apiKey, baseUrl: url, environment } = apiTarget(options, env, use);
  const nature = createNatureClient({
    apiKey,
    baseUrl: url,
    fetch: (request) => {
      request.headers.set('user-agent', userAgent);
      return fetch(request);
    },
  });
  return { nature, baseUrl: url, environment };
}
