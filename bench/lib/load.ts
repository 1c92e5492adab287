import autocannon from 'autocannon';
import { answerBatches } from './api.js';
import { expectStatus, inParallel, type JsonClient } from './client.js';
import { quantile } from './report.js';

/** Connections per load run, as for every HTTP figure of the service. */
export const CONNECTIONS = 10;

export interface Sample {
  perSecond: number;
  /** 2xx responses. */
  succeeded: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

/**
 * One autocannon run. The rate is the 2xx responses over the time from the start to the last response, both
 * taken here: autocannon checks for the end once a second, so its own duration rounds a run that stops
 * after a fixed number of requests up to whole seconds (8,000 PATCHes in 3.1 s read as 2,000/s). Latencies
 * are taken from its response events too: its histogram keeps whole milliseconds.
 */
export function load(settings: autocannon.Options): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    let started = performance.now();
    let last = started;
    let succeeded = 0;
    const instance = autocannon({ connections: CONNECTIONS, ...settings }, (error: unknown, result: autocannon.Result) => {
      if (error) return reject(error instanceof Error ? error : new Error(String(error)));
      resolve({
        // Only 2xx answers count as throughput: a route answering errors fast would otherwise look fast.
        perSecond: succeeded / ((last - started) / 1000),
        succeeded,
        p50: quantile(latencies, 0.5),
        p99: quantile(latencies, 0.99),
        non2xx: result.non2xx,
        errors: result.errors + result.timeouts,
      });
    });
    instance.on('start', () => {
      started = performance.now();
    });
    instance.on('response', (_client, status, _bytes, milliseconds) => {
      last = performance.now();
      if (status >= 200 && status < 300) succeeded++;
      latencies.push(milliseconds);
    });
  });
}

/** A sample and the CPU its server spent per 2xx response over the run (µs), background work included. */
export interface CpuSample extends Sample {
  cpuMicrosPerRequest: number;
}

/** `run`, with the CPU time `server` used during it spread over the run's 2xx responses. */
export async function withCpu(server: { cpuMicros(): number | undefined }, run: () => Promise<Sample>): Promise<CpuSample> {
  const before = server.cpuMicros();
  const sample = await run();
  const after = server.cpuMicros();
  const spent = before === undefined || after === undefined ? Number.NaN : after - before;
  return { ...sample, cpuMicrosPerRequest: spent / sample.succeeded };
}

/** Starts an assessment for each subject (not measured); answers each one's path. */
export function openAssessments(client: JsonClient, subjectIds: readonly string[]): Promise<string[]> {
  return inParallel(subjectIds, CONNECTIONS, async (subjectId) => {
    const assessment = await expectStatus(
      client.call('POST', `/v1/nature/subjects/${subjectId}/assessments`, { language: 'en' }),
      201,
      'start',
    );
    return `/v1/nature/subjects/${subjectId}/assessments/${assessment.id as string}`;
  });
}

/** Idempotency-Keys sent by this process so far: each run's keys follow the last one's. */
let keysSent = 0;

/**
 * The 4 batches of answers to every assessment, as one load run. Batch-major: batch 1 of every assessment,
 * then batch 2, … so no two connections PATCH one assessment at once; one PATCH in four completes an
 * assessment, so scoring and publishing run as in real use.
 */
export function patchEvery(
  url: string,
  headers: Record<string, string>,
  assessments: readonly string[],
  idempotency: 'keyed' | 'unkeyed' = 'unkeyed',
): Promise<Sample> {
  const queue = answerBatches.flatMap((batch) => assessments.map((path) => ({ path, body: JSON.stringify({ responses: batch }) })));
  let next = 0;
  return load({
    url,
    headers,
    amount: queue.length,
    requests: [
      {
        method: 'PATCH',
        setupRequest: (request) => {
          const item = queue[next++ % queue.length]!;
          // A fresh key per request, as a client sends one per logical write: never one of an earlier run's.
          const keyed = idempotency === 'keyed' && {
            headers: { ...request.headers, 'idempotency-key': `bench-${process.pid}-${keysSent++}` },
          };
          return { ...request, path: item.path, body: item.body, ...keyed };
        },
      },
    ],
  });
}
