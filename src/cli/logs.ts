import { Command, InvalidArgumentError, Option } from 'commander';
import { type Environment, environments } from '../domain/api-keys.js';
import type { RequestFilter, RequestLogStore, RequestRecord } from '../ports/request-log.js';
import { pause } from '../support/pause.js';
import { parseUtcInstant } from '../support/utc-instants.js';
import type { Output } from './keys.js';

/** How often a follow asks the store for new requests: each server writes its batch about once a second. */
const POLL_MS = 1000;
/**
 * How far back each poll looks again: a record is stamped when its request arrived and written up to a batch later,
 * on any replica, so one that arrives late is still printed (once: printed ids are remembered for as long).
 */
const LATE_MS = 15_000;
const PAGE = 500;

interface TailOptions {
  env: Environment;
  status?: string;
  path?: string;
  key?: string;
  since?: number;
  until?: number;
  limit: number;
  follow: boolean;
  json?: boolean;
}

const statusClass = (value: string) => {
  if (!/^[2-5]xx$/.test(value)) throw new InvalidArgumentError('A status class: 2xx, 3xx, 4xx or 5xx.');
  return value;
};
const instant = (value: string) => {
  const at = parseUtcInstant(value, new Date());
  if (at === undefined) throw new InvalidArgumentError('A UTC date and time (2026-11-29T10:00Z) or a time back from now (15m, 2h, 7d).');
  return at;
};
const count = (value: string) => {
  if (!/^\d{1,4}$/.test(value) || Number(value) < 1 || Number(value) > 1000)
    throw new InvalidArgumentError('A whole number from 1 to 1000.');
  return Number(value);
};

/** `nature logs tail`: an environment's API requests from its request log, newest last, then new ones as they come. */
export function logsCommand(openRequestLog: (environment: Environment) => Promise<RequestLogStore>, output: Output): Command {
  const tail = new Command('tail')
    .description("print an environment's latest API requests, oldest first, then follow new ones until Ctrl-C (read from the request log)")
    .addOption(new Option('--env <env>', 'test (sandbox) or live (production)').choices(environments).makeOptionMandatory())
    .option('--status <class>', 'only answers of this status class: 2xx, 3xx, 4xx or 5xx', statusClass)
    .option('--path <path>', 'only paths that start so, or one route such as /v1/nature/subjects/:id')
    .option('--key <id>', 'only requests authenticated by this key id (key_…)')
    .option('--since <time>', 'only requests from then on: a UTC time (2026-11-29T10:00Z) or a time back (15m, 2h, 7d)', instant)
    .option('--until <time>', 'only requests before then (a UTC time or a time back); implies --no-follow', instant)
    .option('--limit <n>', 'how many of the latest to print first (1 to 1000)', count, 20)
    .option('--no-follow', 'print the latest and exit')
    .option('--json', 'one JSON object per request, as the request log keeps it')
    .action(async (options: TailOptions) => {
      const store = await openRequestLog(options.env);
      const stop = new AbortController();
      const stopNow = () => stop.abort();
      process.once('SIGINT', stopNow).once('SIGTERM', stopNow);
      try {
        await tailRequests(store, options, output, stop.signal);
      } finally {
        process.off('SIGINT', stopNow).off('SIGTERM', stopNow);
        await store.close();
      }
    });
  return new Command('logs').description('the request log: every API request an environment answered').addCommand(tail);
}

/** One request on one line: time, method, path, status, duration, key, request id (and the problem's code). */
function line(record: RequestRecord): string {
  const code = record.problem === null ? '' : ` ${(/"code":"([a-z_]+)"/.exec(record.problem) ?? [])[1] ?? ''}`;
  return [
    `${new Date(record.at).toISOString().slice(0, 23).replace('T', ' ')}Z`,
    record.method.padEnd(6),
    `${record.status}${code}`.padEnd(4),
    `${record.duration_ms} ms`.padStart(10),
    record.key_hint ?? '-',
    record.id,
    record.path,
  ].join('  ');
}

async function tailRequests(store: RequestLogStore, options: TailOptions, output: Output, stop: AbortSignal): Promise<void> {
  const filter: RequestFilter = {
    ...(options.status !== undefined && { statusClass: Number(options.status[0]) }),
    ...(options.path !== undefined && { path: options.path }),
    ...(options.key !== undefined && { keyId: options.key }),
    ...(options.since !== undefined && { since: options.since }),
    ...(options.until !== undefined && { until: options.until }),
  };
  /** Every record the filter matches, newest first, a page at a time: a busy second may hold more than a page. */
  const since = async (matching: RequestFilter) => {
    const records: RequestRecord[] = [];
    for (let before: string | undefined; ; ) {
      const page = await store.list(matching, { limit: PAGE, ...(before !== undefined && { before }) });
      records.push(...page.data);
      if (!page.hasMore) return records;
      before = page.data.at(-1)!.id;
    }
  };
  const print = (record: RequestRecord) => output.out(options.json === true ? JSON.stringify(record) : line(record));
  const latest = (await store.list(filter, { limit: options.limit })).data.toReversed();
  for (const record of latest) print(record);
  if (!options.follow || options.until !== undefined) return;
  /** Printed ids, by when their request arrived: forgotten once older than a poll looks back. */
  const printed = new Map(latest.map((record) => [record.id, record.at]));
  let newest = latest.at(-1)?.at ?? options.since ?? Date.now() - LATE_MS;
  while (!stop.aborted) {
    await pause(POLL_MS, stop);
    if (stop.aborted) return;
    const from = Math.max(newest - LATE_MS, options.since ?? Number.NEGATIVE_INFINITY);
    const fresh = (await since({ ...filter, since: from })).filter((record) => !printed.has(record.id));
    for (const record of fresh.toReversed()) {
      print(record);
      printed.set(record.id, record.at);
      if (record.at > newest) newest = record.at;
    }
    for (const [id, at] of printed) if (at < newest - LATE_MS) printed.delete(id);
  }
}
