import { isNatureApiError, type NatureClient, type NatureEvent } from '@nature-profile/client';
import { Command, InvalidArgumentError } from 'commander';
import packageJson from '../../package.json' with { type: 'json' };
import { eventTypes } from '../domain/webhook-endpoint.js';
import { type Backoff, backoffDelay } from '../support/backoff.js';
import { pause } from '../support/pause.js';
import { webhookHeaders } from '../webhooks/signer.js';
import { type ApiOptions, apiAccess, httpUrl, withApiOptions } from './api-access.js';
import { CliError, UsageError } from './errors.js';
import type { Output } from './keys.js';
import { defaultStateFile, type ListenState, loadState, saveState } from './listen-state.js';
import { pastLookback, remember, unseen, watermark } from './unseen-events.js';

/** A forward gets this long for its answer by default, as the server's own deliveries do (10 s). */
const FORWARD_TIMEOUT_MS = 10_000;
/** Between tries of a forward the receiver refused, or of a listing that failed. */
const RETRY: Backoff = { firstDelayMs: 1000, maxDelayMs: 30_000 };

const environmentNames = { test: 'sandbox', live: 'production' } as const;

interface ListenOptions extends ApiOptions {
  forwardTo?: string;
  printSecret?: boolean;
  events?: string[];
  stateFile?: string;
  interval: number;
  timeout: number;
}

/**
 * --forward-to's value: an http(s) URL with a host. `http://` alone passed a prefix check and was then retried for
 * ever, as a receiver that never answers.
 */
function forwardTarget(value: string): string {
  if (httpUrl(value) === undefined)
    throw new InvalidArgumentError('It is an http(s) URL with a host, such as http://localhost:3000/webhooks.');
  return value;
}

/** A number of milliseconds of at least `min`, for an option. */
const milliseconds = (min: number) => (value: string) => {
  const ms = Number(value);
  if (!Number.isInteger(ms) || ms < min) throw new InvalidArgumentError(`It is a whole number of milliseconds, at least ${min}.`);
  return ms;
};

/** The events listed since the look-back began, not forwarded yet, oldest first. */
async function newEvents(nature: NatureClient, state: ListenState): Promise<NatureEvent[]> {
  const listed: NatureEvent[] = [];
  const mark = watermark(state.forwarded);
  for await (const event of nature.events.list({ limit: 100 })) {
    if (pastLookback(event, mark)) break;
    listed.push(event);
  }
  return unseen(listed, state.forwarded);
}

/**
 * One delivery of `event` to `url`, signed as the server signs its webhooks; what came back, in words. `stop`
 * cuts it short: Ctrl-C does not wait for a receiver that hangs.
 */
async function forward(
  url: string,
  secret: string,
  event: NatureEvent,
  timeoutMs: number,
  stop: AbortSignal,
): Promise<{ ok: boolean; said: string }> {
  const body = JSON.stringify(event);
  const timestamp = Math.floor(Date.now() / 1000);
  const started = performance.now();
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'user-agent': `nature-listen/${packageJson.version}`,
        ...webhookHeaders([secret], event.id, timestamp, body),
      },
      body,
      redirect: 'manual',
      signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), stop]),
    });
    await response.body?.cancel();
    return { ok: response.ok, said: `${response.status} (${Math.round(performance.now() - started)} ms)` };
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { ok: false, said: `no answer: ${cause ?? (error as Error).message}` };
  }
}

/** Waits `ms`, or less when `stop` fires; false once stopped. */
const rest = async (ms: number, stop: AbortSignal) => {
  await pause(ms, stop);
  return !stop.aborted;
};

/** A key the server refuses will never work: that ends the command; anything else is waited out. */
function fatal(error: unknown): CliError | undefined {
  if (isNatureApiError(error, 'unauthenticated', 'insufficient_scope'))
    return new CliError(`the server refused the key (${error.code}): ${error.detail}`);
  return undefined;
}

/**
 * Follows the environment's events and forwards each, in order, to `forwardTo`, until `stop`. An event is
 * kept as forwarded only once the receiver answered 2xx; until then it is sent again with back-off.
 */
async function follow(
  nature: NatureClient,
  forwardTo: string,
  options: ListenOptions,
  state: ListenState,
  file: string,
  output: Output,
  stop: AbortSignal,
) {
  for (let failures = 0; !stop.aborted; ) {
    let events: NatureEvent[];
    try {
      events = await newEvents(nature, state);
      failures = 0;
    } catch (error) {
      const ended = fatal(error);
      if (ended) throw ended;
      const wait = backoffDelay(RETRY, ++failures);
      output.err(`cannot read the events: ${(error as Error).message} (trying again in ${wait / 1000} s)`);
      if (!(await rest(wait, stop))) return;
      continue;
    }
    for (const event of events) {
      if (options.events === undefined || options.events.includes(event.type)) {
        for (let attempt = 0; ; attempt += 1) {
          const { ok, said } = await forward(forwardTo, state.secret, event, options.timeout, stop);
          // Stopped mid-forward: not forwarded, so the next run sends it again.
          if (stop.aborted) return;
          const line = `${event.created_at}  ${event.type}  ${event.id}  -> ${said}`;
          if (ok) {
            output.out(line);
            break;
          }
          const wait = backoffDelay(RETRY, attempt + 1);
          output.out(`${line}, sending again in ${wait / 1000} s`);
          if (!(await rest(wait, stop))) return;
        }
      }
      state.forwarded = remember(state.forwarded, event);
      saveState(file, state);
      if (stop.aborted) return;
    }
    if (!(await rest(options.interval, stop))) return;
  }
}

/** `nature listen --forward-to URL`: a local webhook endpoint for development, with no public receiver. */
/** A comma-separated list of event types, each one the server sends: a misspelt type would filter out everything, silently. */
function knownTypes(value: string): string[] {
  const types = value.split(',').map((type) => type.trim());
  const unknown = types.filter((type) => !(eventTypes as readonly string[]).includes(type));
  if (unknown.length > 0) throw new InvalidArgumentError(`${unknown.join(', ')}: not an event type (${eventTypes.join(', ')})`);
  return types;
}

export function listenCommand(env: NodeJS.ProcessEnv, output: Output): Command {
  return withApiOptions(
    new Command('listen')
      .description(
        "forward the environment's events, as they happen, to a local URL, signed like the server's webhooks; resumes where it stopped",
      )
      .option('--forward-to <url>', 'where to POST each event, e.g. http://localhost:3000/webhooks', forwardTarget)
      .option('--print-secret', 'print the signing secret and stop; a later run forwards what happens from now on')
      .option('--events <types>', `only these event types, comma-separated (default: every type: ${eventTypes.join(', ')})`, knownTypes)
      .option('--state-file <file>', 'where the signing secret and the position are kept (default: under XDG_STATE_HOME)')
      .option('--interval <ms>', 'how often to look for new events', milliseconds(100), 1000)
      .option('--timeout <ms>', 'how long a forward waits for the receiver to answer', milliseconds(100), FORWARD_TIMEOUT_MS),
  ).action(async (options: ListenOptions) => {
    const { nature, baseUrl, environment } = apiAccess(options, env, { command: 'nature listen', writes: false });
    const { forwardTo = '' } = options;
    if (!options.printSecret && forwardTo === '')
      throw new UsageError('--forward-to is needed, an http(s) URL such as http://localhost:3000/webhooks (or --print-secret)');
    const file = options.stateFile ?? defaultStateFile(env, baseUrl, environment);
    const { state, fresh } = loadState(file);
    try {
      if (fresh) {
        // A first run starts from now: what happened before is not news.
        for await (const event of nature.events.list({ limit: 100 })) {
          // The first (newest) event listed sets the mark the rest are measured from.
          if (pastLookback(event, watermark(state.forwarded))) break;
          state.forwarded = remember(state.forwarded, event);
        }
      }
      // Saved at once, so the secret printed below is the one every later run signs with.
      saveState(file, state);
    } catch (error) {
      throw fatal(error) ?? error;
    }
    if (options.printSecret) return output.out(state.secret);

    output.out(`Forwarding ${environmentNames[environment]} events of ${baseUrl} to ${forwardTo}`);
    output.out(`Signing secret: ${state.secret} (kept in ${file}; verify deliveries with it as with any Standard Webhooks secret)`);
    output.out(
      fresh
        ? 'Ready: waiting for new events. Ctrl-C stops; the next run resumes where this one stopped.'
        : 'Ready: forwarding what happened since the last run (or --print-secret) stopped.',
    );

    const stop = new AbortController();
    const stopNow = () => stop.abort();
    process.once('SIGINT', stopNow).once('SIGTERM', stopNow);
    try {
      await follow(nature, forwardTo, options, state, file, output, stop.signal);
    } finally {
      process.off('SIGINT', stopNow).off('SIGTERM', stopNow);
    }
    output.out('Stopped: the next run resumes from here.');
  });
}
