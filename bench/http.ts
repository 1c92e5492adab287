/**
 * HTTP throughput and latency: autocannon against the real server process and against a bare fastify
 * hello-world, on the same machine in the same run. Each round runs every route back to back; figures
 * are medians of the rounds.
 *
 *   cd bench && npm run http [-- --quick] [-- --rounds N]
 */
import autocannon from 'autocannon';
import { answerBatches, BATCH_SIZE, subjectBody } from './lib/api.js';
import { expectStatus, inParallel, jsonClient } from './lib/client.js';
import { startHelloWorld, startNatureServer } from './lib/nature-server.js';
import { readOptions } from './lib/options.js';
import { heading, median, ms, num, quantile, ratio, table } from './lib/report.js';

const options = readOptions();
const SECONDS = options.quick ? 1 : 3;
const CONNECTIONS = 10;
/** Assessments prepared for the PATCH run at most: bounds the preparation time on a fast server. */
const MAX_ASSESSMENTS = options.quick ? 300 : 2000;

interface Sample {
  perSecond: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
}

const rows = ['hello', 'items', 'subject', 'post', 'patch'] as const;
type Row = (typeof rows)[number];
const labels: Record<Row, string> = {
  hello: 'bare fastify hello-world: GET /',
  items: 'GET /v1/nature/items',
  subject: 'GET /v1/nature/subjects/{id}',
  post: 'POST /v1/nature/subjects',
  patch: `PATCH …/assessments/{id}, ${BATCH_SIZE} answers`,
};
const samples: Record<Row, Sample[]> = { hello: [], items: [], subject: [], post: [], patch: [] };

/** One autocannon run. Latencies are taken from its response events: its own histogram keeps whole milliseconds. */
function run(settings: autocannon.Options): Promise<Sample> {
  return new Promise((resolve, reject) => {
    const latencies: number[] = [];
    const instance = autocannon({ connections: CONNECTIONS, ...settings }, (error: unknown, result: autocannon.Result) => {
      if (error) return reject(error instanceof Error ? error : new Error(String(error)));
      resolve({
        perSecond: result.requests.total / result.duration,
        p50: quantile(latencies, 0.5),
        p99: quantile(latencies, 0.99),
        non2xx: result.non2xx,
        errors: result.errors + result.timeouts,
      });
    });
    instance.on('response', (_client, _status, _bytes, milliseconds) => latencies.push(milliseconds));
  });
}

const hello = await startHelloWorld();
const server = await startNatureServer();
const headers = { authorization: `Bearer ${server.key}`, 'content-type': 'application/json' };
const client = jsonClient(server.url, server.key, CONNECTIONS);

try {
  const subject = await expectStatus(client.call('POST', '/v1/nature/subjects', subjectBody('bench-get')), 201, 'create a subject');
  let created = 0;

  // Warm-up: JIT and connection set-up on both servers, not counted.
  await run({ url: `${hello.url}/`, duration: 1 });
  await run({ url: `${server.url}/v1/nature/items`, headers, duration: 1 });

  for (let round = 0; round < options.rounds; round++) {
    samples.hello.push(await run({ url: `${hello.url}/`, duration: SECONDS }));
    samples.items.push(await run({ url: `${server.url}/v1/nature/items`, headers, duration: SECONDS }));
    samples.subject.push(await run({ url: `${server.url}/v1/nature/subjects/${subject.id}`, headers, duration: SECONDS }));

    // Each POST needs its own external id; the subjects it makes get the assessments PATCHed below.
    const subjects: string[] = [];
    const post = await run({
      url: server.url,
      headers,
      duration: SECONDS,
      requests: [
        {
          method: 'POST',
          path: '/v1/nature/subjects',
          setupRequest: (request) => ({ ...request, body: JSON.stringify(subjectBody(`bench-${process.pid}-${created++}`)) }),
          onResponse: (status, body) => {
            if (status === 201) subjects.push((JSON.parse(body) as { id: string }).id);
          },
        },
      ],
    });
    samples.post.push(post);

    // Not measured: an open assessment for each subject (at most MAX_ASSESSMENTS).
    const assessments = await inParallel(subjects.slice(0, MAX_ASSESSMENTS), CONNECTIONS, async (subjectId) => {
      const assessment = await expectStatus(
        client.call('POST', `/v1/nature/subjects/${subjectId}/assessments`, { language: 'en' }),
        201,
        'start',
      );
      return `/v1/nature/subjects/${subjectId}/assessments/${assessment.id as string}`;
    });
    // Batch-major: batch 1 of every assessment, then batch 2, … so no two connections PATCH one assessment
    // at once; one PATCH in four completes an assessment, so scoring and publishing run as in real use.
    const queue = answerBatches.flatMap((batch) => assessments.map((path) => ({ path, body: JSON.stringify({ responses: batch }) })));
    let next = 0;
    const patch = await run({
      url: server.url,
      headers,
      amount: queue.length,
      requests: [
        {
          method: 'PATCH',
          setupRequest: (request) => {
            const item = queue[next++ % queue.length]!;
            return { ...request, path: item.path, body: item.body };
          },
        },
      ],
    });
    samples.patch.push(patch);
    process.stderr.write(`http: round ${round + 1}/${options.rounds} done (${assessments.length} assessments PATCHed)\n`);
  }
} finally {
  client.close();
  await server.stop();
  await hello.stop();
}

const rate = (row: Row) => median(samples[row].map((sample) => sample.perSecond));
console.log(
  heading(
    'HTTP: requests per second and latency (autocannon)',
    `autocannon, ${CONNECTIONS} connections, ${SECONDS} s per route (PATCH: 4 batches for each subject the POST run made); ` +
      `the real server (\`node --import tsx src/main.ts\`, fresh data directory, synchronous=FULL, LOG_LEVEL=info to a file) ` +
      `and a bare fastify hello-world, each its own process; median of ${options.rounds} round(s).`,
  ),
);
console.log(
  table(
    ['route', 'req/s', 'p50', 'p99', 'non-2xx / errors'],
    rows.map((row) => [
      labels[row],
      num(rate(row)),
      ms(median(samples[row].map((sample) => sample.p50))),
      ms(median(samples[row].map((sample) => sample.p99))),
      `${samples[row].reduce((sum, sample) => sum + sample.non2xx, 0)} / ${samples[row].reduce((sum, sample) => sum + sample.errors, 0)}`,
    ]),
  ),
);
console.log();
console.log(
  table(
    ['ratio (req/s)', 'measured', 'goal'],
    [
      ['PATCH of 19 answers / GET items', ratio(rate('patch'), rate('items')), '≥ 0.5'],
      ['POST subjects / GET items', ratio(rate('post'), rate('items')), '≥ 0.4'],
      ['GET items / bare fastify hello-world', ratio(rate('items'), rate('hello')), '≥ 0.5'],
      ['GET subject / GET items', ratio(rate('subject'), rate('items')), ''],
    ],
  ),
);
