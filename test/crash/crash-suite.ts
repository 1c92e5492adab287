import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { knownProfile, knownResponses } from '../support/known-answers.js';
import { type ServerProcess, startServer } from '../support/processes.js';
import { type Received, startReceiver } from '../support/receiver.js';
import { StoreReader } from '../support/stores.js';
import { tempDir } from '../support/temp-dir.js';
import { validSubject } from '../support/test-app.js';

/**
 * The crash suite: many assessments run concurrently over real HTTP against the server as a process,
 * with two webhook endpoints registered, while the server is killed with SIGKILL at random moments and
 * restarted. Afterwards it checks, from the server's own SQLite files (read-only) and over HTTP, that
 * nothing acknowledged was lost and nothing happened twice. No check depends on how long anything took.
 */
export interface CrashOptions {
  /** Whole assessments (subject, start, 76 answers in batches), each with its own subject. */
  assessments: number;
  /** SIGKILLs of the server, each followed by a restart. */
  kills: number;
  /** Assessments under way at once. */
  concurrency: number;
  /** Makes batch sizes and kill moments reproducible; random when not given. */
  seed?: number;
  /** Progress lines (a kill, a restart); silent when not given. */
  progress?: (line: string) => void;
  /** Keep the data directory (its path is in the report); it is kept anyway when a check fails. */
  keepData?: boolean;
  /**
   * Send every write with its own Idempotency-Key, kept across the write's retries, and register, update and
   * rotate a side endpoint every third assessment. Then every retry must answer the first attempt's 2xx: any
   * 409 fails, and each write is sent once more with its key, to be answered the same, marked replayed.
   */
  idempotencyKeys?: boolean;
}

export interface CrashReport {
  /** The figures the suite prints, in order. */
  figures: [string, string | number][];
  /** Every check that failed, one line each; empty when all hold. */
  failures: string[];
  dataDir: string;
}

/** Settings for every server the suite starts: short webhook retries and no rate limit in the way. */
export const crashServerSettings = {
  NATURE_WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,400ms,800ms,1s,1s,2s,2s,2s,2s,2s,2s',
  NATURE_WEBHOOK_TIMEOUT_MS: '3000',
  NATURE_RATE_LIMIT_PER_SECOND: '1000000',
  NATURE_RATE_LIMIT_BURST: '1000000',
  LOG_LEVEL: 'info',
};

/** mulberry32: a small seeded generator, so a run can be replayed with its seed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function mapLimit<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++]!);
    }),
  );
}

type Body = Record<string, any>;

/** A 2xx answer to a write, as the client saw it. */
interface Write {
  kind: 'subject' | 'assessment' | 'batch' | 'endpoint' | 'endpoint update' | 'endpoint rotation';
  id: string;
  requestId: string;
  body: Body;
  /** An earlier attempt of the same write had no answer (the server died): its effect may be that attempt's. */
  afterUnknownOutcome: boolean;
  assessmentId?: string;
  items?: string[];
}

interface Answer {
  status: number;
  body: Body;
  requestId: string;
  /** Answered from the key's stored answer (idempotent-replayed: true). */
  replayed: boolean;
  /** Attempts that got no answer (connection refused or cut by a kill) before this one. */
  unknownOutcomes: number;
}

export async function runCrashSuite(options: CrashOptions): Promise<CrashReport> {
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const rng = random(seed);
  const log = options.progress ?? (() => undefined);
  const began = Date.now();
  const dir = tempDir('nature-crash-');
  const env = { ...crashServerSettings, NATURE_DATA_DIR: dir.path };
  const failures: string[] = [];
  const fail = (line: string) => failures.push(line);

  const minted = await runCliInProcess(keyCreateArgs('test', 'crash'), env);
  if (minted.status !== 0) throw new Error(`could not mint a key: ${minted.stderr}`);
  const key = (JSON.parse(minted.stdout) as { key: string }).key;

  const counts = {
    requestsStarted: 0,
    answered: 0,
    byClass: { '2xx': 0, '3xx': 0, '4xx': 0, '5xx': 0 } as Record<string, number>,
    unknownOutcomes: 0,
    recoveredBy409: 0,
    keyedWrites: 0,
    keyInUse: 0,
    replaysCompared: 0,
    conflicts: 0,
  };
  const keyed = options.idempotencyKeys === true;
  // Two receivers: one answers 200, the other fails every fourth request with 503 (so retries run across kills).
  const receivers = [await startReceiver(() => 200), await startReceiver((n) => (n % 4 === 1 ? 503 : 200))];
  // Where side endpoints point; nothing is sent there.
  const sink = await startReceiver(() => 200);

  // The server, killed and restarted by the killer; callers wait on `ready` while it is down.
  const servers: ServerProcess[] = [];
  let stopping = false;
  const watch = (server: ServerProcess) => {
    servers.push(server);
    void server.exited.then((how) => {
      if (how !== 'SIGKILL' && !stopping) fail(`the server exited by itself (${how}); its last output:\n${server.output().slice(-2000)}`);
    });
    return server;
  };
  let ready: Promise<ServerProcess> = startServer(env).then(watch);
  let kills = 0;
  const killAndRestart = async () => {
    const victim = await ready;
    ready = (async () => {
      victim.process.kill('SIGKILL');
      await victim.exited;
      kills += 1;
      log(`crash: SIGKILL ${kills}/${options.kills} at ${counts.requestsStarted} requests; restarting`);
      return watch(await startServer(env));
    })();
    await ready;
  };

  const writes: Write[] = [];

  /** One request, repeated until the server answers it; a write's effect may then be that of an unanswered attempt. */
  async function call(method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<Answer> {
    let unknownOutcomes = 0;
    for (let attempt = 1; ; attempt++) {
      const server = await ready;
      counts.requestsStarted += 1;
      try {
        const response = await fetch(`${server.url}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${key}`,
            ...(body !== undefined && { 'content-type': 'application/json' }),
            ...(idempotencyKey !== undefined && { 'idempotency-key': idempotencyKey }),
          },
          ...(body !== undefined && { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(60_000),
        });
        // A body cut off by a kill throws here, like a refused connection: no answer.
        const text = await response.text();
        const answer = text === '' ? {} : (JSON.parse(text) as Body);
        const statusClass = `${Math.floor(response.status / 100)}xx`;
        counts.answered += 1;
        counts.byClass[statusClass] = (counts.byClass[statusClass] ?? 0) + 1;
        if (response.status >= 500) fail(`${method} ${path} answered ${response.status}: ${text.slice(0, 500)}`);
        // The key's first request is still running (in this server: a request cut off with its process is not).
        if (response.status === 409 && answer.code === 'idempotency_key_in_use') {
          counts.keyInUse += 1;
          await sleep(100);
          continue;
        }
        if (response.status === 409) counts.conflicts += 1;
        const replayed = response.headers.get('idempotent-replayed') === 'true';
        return { status: response.status, body: answer, requestId: response.headers.get('request-id') ?? '', replayed, unknownOutcomes };
      } catch (error) {
        // Refused (the server is down), reset or cut off by a kill: the request may or may not have taken effect.
        unknownOutcomes += 1;
        counts.unknownOutcomes += 1;
        if (attempt >= 400) throw new Error(`${method} ${path}: no answer after ${attempt} attempts: ${(error as Error).message}`);
        await sleep(attempt < 5 ? 20 : 100);
      }
    }
  }

  const unexpected = (what: string, answer: Answer): void => {
    fail(`${what}: unexpected ${answer.status} ${JSON.stringify(answer.body).slice(0, 500)}`);
  };

  /**
   * A write: with idempotencyKeys, under its own key, retried with it until answered; a 2xx is then sent once
   * more with the key and must come back the same, marked replayed.
   */
  let keysMinted = 0;
  async function write(method: string, path: string, body: unknown): Promise<Answer> {
    if (!keyed) return call(method, path, body);
    const idempotencyKey = `crash-${seed}-${++keysMinted}`;
    counts.keyedWrites += 1;
    const answer = await call(method, path, body, idempotencyKey);
    if (answer.status < 300) {
      const again = await call(method, path, body, idempotencyKey);
      counts.replaysCompared += 1;
      if (again.status !== answer.status || !again.replayed || !isDeepStrictEqual(again.body, answer.body)) {
        fail(
          `${method} ${path} with key ${idempotencyKey} answered ${answer.status}, then ${again.status}${again.replayed ? ' (replayed)' : ' (not replayed)'}: ${JSON.stringify(again.body).slice(0, 300)}`,
        );
      }
    }
    return answer;
  }

  async function createSubject(externalId: string): Promise<string | undefined> {
    const answer = await write('POST', '/v1/nature/subjects', validSubject(externalId));
    if (answer.status === 201) {
      writes.push({
        kind: 'subject',
        id: answer.body.id,
        requestId: answer.requestId,
        body: answer.body,
        afterUnknownOutcome: answer.unknownOutcomes > 0,
      });
      return answer.body.id as string;
    }
    // The first attempt took effect before its answer was lost.
    if (!keyed && answer.status === 409 && answer.body.code === 'subject_exists' && answer.unknownOutcomes > 0) {
      counts.recoveredBy409 += 1;
      return answer.body.subject_id as string;
    }
    unexpected(`create subject ${externalId}`, answer);
    return undefined;
  }

  async function startAssessment(subjectId: string): Promise<string | undefined> {
    const answer = await write('POST', `/v1/nature/subjects/${subjectId}/assessments`, {});
    if (answer.status === 201) {
      writes.push({
        kind: 'assessment',
        id: answer.body.id,
        requestId: answer.requestId,
        body: answer.body,
        afterUnknownOutcome: answer.unknownOutcomes > 0,
      });
      return answer.body.id as string;
    }
    if (!keyed && answer.status === 409 && answer.body.code === 'assessment_in_progress' && answer.unknownOutcomes > 0) {
      counts.recoveredBy409 += 1;
      return answer.body.assessment_id as string;
    }
    unexpected(`start an assessment of ${subjectId}`, answer);
    return undefined;
  }

  async function answerBatch(subjectId: string, assessmentId: string, batch: typeof knownResponses, index: number): Promise<void> {
    const answer = await write('PATCH', `/v1/nature/subjects/${subjectId}/assessments/${assessmentId}`, { responses: batch });
    const items = batch.map((response) => response.item_id);
    if (answer.status === 200) {
      writes.push({
        kind: 'batch',
        id: `${assessmentId}#${index}`,
        requestId: answer.requestId,
        body: answer.body,
        afterUnknownOutcome: answer.unknownOutcomes > 0,
        assessmentId,
        items,
      });
      return;
    }
    // The lost attempt (or a concurrent batch) completed the 76 answers: the assessment is no longer open.
    if (!keyed && answer.status === 409 && answer.body.code === 'assessment_not_open' && answer.unknownOutcomes > 0) {
      counts.recoveredBy409 += 1;
      return;
    }
    unexpected(`batch ${index} of ${assessmentId}`, answer);
  }

  /**
   * An endpoint of its own (listening to profile updates only, which the workload never sends) registered,
   * described anew and given a new secret: the endpoint writes a retry after a crash must answer as first decided.
   */
  async function endpointLifecycle(i: number): Promise<void> {
    const created = await write('POST', '/v1/nature/webhook_endpoints', {
      url: sink.url,
      enabled_events: ['nature.profile.updated'],
      description: `side ${i}`,
    });
    if (created.status !== 201) return unexpected(`register side endpoint ${i}`, created);
    const id = created.body.id as string;
    writes.push({
      kind: 'endpoint',
      id,
      requestId: created.requestId,
      body: created.body,
      afterUnknownOutcome: created.unknownOutcomes > 0,
    });
    const updated = await write('PATCH', `/v1/nature/webhook_endpoints/${id}`, { description: `side ${i}, described again` });
    if (updated.status !== 200) return unexpected(`update side endpoint ${i}`, updated);
    writes.push({
      kind: 'endpoint update',
      id,
      requestId: updated.requestId,
      body: updated.body,
      afterUnknownOutcome: updated.unknownOutcomes > 0,
    });
    const rotated = await write('POST', `/v1/nature/webhook_endpoints/${id}/rotate_secret`, { expire_previous_in: 0 });
    if (rotated.status !== 200) return unexpected(`rotate the secret of side endpoint ${i}`, rotated);
    writes.push({
      kind: 'endpoint rotation',
      id,
      requestId: rotated.requestId,
      body: rotated.body,
      afterUnknownOutcome: rotated.unknownOutcomes > 0,
    });
  }

  /** The 76 known answers in 1..8 batches of random sizes. */
  function randomBatches(): (typeof knownResponses)[] {
    const count = 1 + Math.floor(rng() * 8);
    const cuts = new Set<number>();
    while (cuts.size < count - 1) cuts.add(1 + Math.floor(rng() * (knownResponses.length - 1)));
    const bounds = [0, ...[...cuts].sort((a, b) => a - b), knownResponses.length];
    return bounds.slice(1).map((end, i) => knownResponses.slice(bounds[i], end));
  }

  const plans = Array.from({ length: options.assessments }, (_, i) => ({
    i,
    batches: randomBatches(),
    concurrent: rng() < 0.3,
    sideEndpoint: keyed && i % 3 === 0,
  }));
  // With keys, each write is sent twice (the second a replay); a side endpoint is registered, updated and rotated.
  const plannedRequests =
    1 + plans.reduce((sum, plan) => sum + (keyed ? 2 : 1) * (2 + plan.batches.length + (plan.sideEndpoint ? 3 : 0)), 0);
  // Kill moments: random points of the workload, counted in requests started, each a little later in time.
  const killAt = Array.from({ length: options.kills }, () => Math.floor((0.03 + rng() * 0.94) * plannedRequests)).sort((a, b) => a - b);
  // With two kills or more, the last comes once every answer is acknowledged: while scoring and webhooks catch up.
  if (options.kills >= 2) killAt[killAt.length - 1] = Number.POSITIVE_INFINITY;
  const killJitterMs = killAt.map((at) => Math.floor(rng() * (at === Number.POSITIVE_INFINITY ? 300 : 40)));

  const completed: { subjectId: string; assessmentId: string }[] = [];
  let killsDuringWorkload = 0;
  let workloadDone = false;
  try {
    // The endpoints first, so every completion has somewhere to go.
    for (const receiver of receivers) {
      const answer = await write('POST', '/v1/nature/webhook_endpoints', { url: receiver.url, description: 'crash suite' });
      if (answer.status !== 201) throw new Error(`could not register a webhook endpoint: ${answer.status} ${JSON.stringify(answer.body)}`);
      receiver.useSecret(answer.body.secret as string);
      writes.push({
        kind: 'endpoint',
        id: answer.body.id,
        requestId: answer.requestId,
        body: answer.body,
        afterUnknownOutcome: answer.unknownOutcomes > 0,
      });
    }

    const killer = (async () => {
      for (const [index, threshold] of killAt.entries()) {
        while (counts.requestsStarted < threshold && !workloadDone) await sleep(5);
        await sleep(killJitterMs[index]!);
        if (!workloadDone) killsDuringWorkload += 1;
        await killAndRestart();
      }
    })();

    await mapLimit(plans, options.concurrency, async ({ i, batches, concurrent, sideEndpoint }) => {
      if (sideEndpoint) await endpointLifecycle(i);
      const subjectId = await createSubject(`crash-${seed}-${i}`);
      if (subjectId === undefined) return;
      const assessmentId = await startAssessment(subjectId);
      if (assessmentId === undefined) return;
      if (concurrent) await Promise.all(batches.map((batch, index) => answerBatch(subjectId, assessmentId, batch, index)));
      else for (const [index, batch] of batches.entries()) await answerBatch(subjectId, assessmentId, batch, index);
      completed.push({ subjectId, assessmentId });
    });
    workloadDone = true;
    // Kills the workload outran happen now, while scoring and webhooks catch up.
    await killer;

    // Finish: the last server scores and delivers what is left. Bounded waiting, never a timing assertion.
    const store = new StoreReader(dir.path);
    const completionEvents = () => store.log('sandbox').filter((row) => row.type === 'ScoringCompleted');
    const deliveredIds = (received: Received[]) =>
      new Set(received.filter((r) => r.verified.ok).map((r) => String(r.headers['webhook-id'])));
    const deadline = Date.now() + 120_000 + options.assessments * 200;
    for (;;) {
      const events = completionEvents();
      const allScored = new Set(events.map((row) => row.data.assessment_id)).size >= completed.length;
      const allDelivered = receivers.every((receiver) => {
        const ids = deliveredIds(receiver.received);
        return events.every((row) => ids.has(row.data.event_id as string));
      });
      if ((allScored && allDelivered) || Date.now() > deadline) break;
      await sleep(200);
    }

    // ---- Checks ----
    const server = await ready;
    const get = async (path: string) => {
      const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
      return { status: response.status, body: (await response.json()) as Body };
    };
    const logRows = store.log('sandbox');
    /** The first event of `type` on the stream `write` names. */
    const firstOf = (write: Write, type: string | undefined) => {
      const stream =
        write.kind === 'subject'
          ? `subject-${write.id}`
          : write.kind === 'assessment'
            ? `assessment-${write.id}`
            : `webhook_endpoint-${write.id}`;
      return type === undefined ? undefined : logRows.find((row) => row.stream_name === stream && row.type === type);
    };
    const byStreamType = new Set(logRows.map((row) => `${row.stream_name} ${row.type}`));
    const requestIdsInLog = new Set(logRows.map((row) => row.metadata.request_id).filter((id) => id !== undefined));
    const subjects = store.documents('sandbox', 'subjects');
    const assessments = store.documents('sandbox', 'assessments');
    const profiles = store.documents('sandbox', 'profiles');
    const eventDocs = store.documents('sandbox', 'events');
    const endpoints = store.documents('sandbox', 'webhook_endpoints');

    // 1. Every acknowledged write is in the log and in the read models (and served as acknowledged).
    let lost = 0;
    const lose = (write: Write, why: string) => {
      lost += 1;
      fail(`lost: ${write.kind} ${write.id} (request ${write.requestId}): ${why}`);
    };
    await mapLimit(writes, 8, async (write) => {
      switch (write.kind) {
        case 'subject': {
          if (!byStreamType.has(`subject-${write.id} SubjectCreated`)) return lose(write, 'no SubjectCreated in the log');
          if (subjects.get(write.id)?.status !== 'active') return lose(write, 'no active subject document in the read models');
          const read = await get(`/v1/nature/subjects/${write.id}`);
          if (read.status !== 200 || !isDeepStrictEqual(read.body, write.body))
            return lose(write, `GET answers ${read.status} ${JSON.stringify(read.body)}`);
          return;
        }
        case 'assessment': {
          if (!byStreamType.has(`assessment-${write.id} AssessmentStarted`)) return lose(write, 'no AssessmentStarted in the log');
          if (!assessments.has(write.id)) return lose(write, 'no assessment document in the read models');
          const read = await get(`/v1/nature/subjects/${write.body.subject_id}/assessments/${write.id}`);
          if (read.status !== 200 || read.body.id !== write.id) return lose(write, `GET answers ${read.status}`);
          return;
        }
        case 'batch': {
          if (!write.afterUnknownOutcome && !requestIdsInLog.has(write.requestId))
            return lose(write, 'no ResponsesSubmitted with its request id in the log');
          // The read models keep answers sealed: the API, which opens them, says which items are answered.
          const doc = assessments.get(write.assessmentId!);
          const read = await get(`/v1/nature/subjects/${doc?.subject_id as string}/assessments/${write.assessmentId!}`);
          if (read.status !== 200) return lose(write, `GET of its assessment answers ${read.status}`);
          const missing = write.items!.filter((item) => (read.body.unanswered_item_ids as string[]).includes(item));
          if (missing.length > 0) return lose(write, `items ${missing.join(', ')} are not answered in the read models`);
          return;
        }
        case 'endpoint': {
          if (!byStreamType.has(`webhook_endpoint-${write.id} WebhookEndpointCreated`))
            return lose(write, 'no WebhookEndpointCreated in the log');
          if (endpoints.get(write.id)?.status !== 'enabled') return lose(write, 'no enabled endpoint document in the read models');
          if (firstOf(write, 'WebhookEndpointCreated')?.data.secret !== write.body.secret)
            fail(`endpoint ${write.id} was answered a secret it was not given`);
          return;
        }
        case 'endpoint update': {
          if (firstOf(write, 'WebhookEndpointUpdated') === undefined) return lose(write, 'no WebhookEndpointUpdated in the log');
          const read = await get(`/v1/nature/webhook_endpoints/${write.id}`);
          if (read.body.description !== write.body.description)
            return lose(write, `GET answers the description ${JSON.stringify(read.body.description)}`);
          return;
        }
        case 'endpoint rotation': {
          const rotations = logRows.filter(
            (row) => row.stream_name === `webhook_endpoint-${write.id}` && row.type === 'WebhookEndpointSecretRotated',
          );
          if (rotations.length !== 1) return lose(write, `${rotations.length} rotations in the log, not 1`);
          if (rotations[0]!.data.secret !== write.body.secret) fail(`endpoint ${write.id} was answered a rotated secret it was not given`);
          return;
        }
      }
    });

    // With keys: nothing was made twice, each answered secret is the one kept, and (a figure) how many answers a
    // retry drew from the events a cut-off attempt had written: their request id is not the answer's.
    let rebuilt = 0;
    if (keyed) {
      for (const write of writes) {
        const made = firstOf(
          write,
          {
            subject: 'SubjectCreated',
            assessment: 'AssessmentStarted',
            batch: undefined,
            endpoint: 'WebhookEndpointCreated',
            'endpoint update': 'WebhookEndpointUpdated',
            'endpoint rotation': 'WebhookEndpointSecretRotated',
          }[write.kind],
        );
        if (write.afterUnknownOutcome && made !== undefined && made.metadata.request_id !== write.requestId) rebuilt += 1;
        if (write.kind !== 'assessment') continue;
        const opened = logRows.find((row) => row.type === 'AssessmentOpened' && row.data.assessment_id === write.id);
        const hash = createHash('sha256').update(String(write.body.client_secret)).digest('hex');
        if (opened?.data.client_secret_hash !== hash)
          fail(`assessment ${write.id} was answered a client secret whose hash is not the one kept`);
      }
      const perSubject = new Map<string, number>();
      for (const doc of assessments.values()) perSubject.set(doc.subject_id, (perSubject.get(doc.subject_id) ?? 0) + 1);
      for (const [subjectId, n] of perSubject) if (n > 1) fail(`subject ${subjectId} has ${n} assessments: a start ran twice`);
      const registered = writes.filter((write) => write.kind === 'endpoint').length;
      if (endpoints.size !== registered)
        fail(`${endpoints.size} endpoints are registered for ${registered} acknowledged registrations: one ran twice`);
      if (counts.conflicts > 0) fail(`${counts.conflicts} writes answered 409`);
    }

    // 2. Every completed assessment: exactly one completion in the log, one profile, one completion event, the known scores.
    const scoredInLog = new Map<string, number>();
    for (const row of logRows)
      if (row.type === 'ScoringCompleted') scoredInLog.set(row.data.assessment_id, (scoredInLog.get(row.data.assessment_id) ?? 0) + 1);
    const profilesOf = new Map<string, Body[]>();
    for (const doc of profiles.values()) profilesOf.set(doc.assessment_id, [...(profilesOf.get(doc.assessment_id) ?? []), doc]);
    const completionEventsOf = new Map<string, Body[]>();
    for (const doc of eventDocs.values()) {
      if (doc.type === 'nature.assessment.completed')
        completionEventsOf.set(doc.data.assessment_id, [...(completionEventsOf.get(doc.data.assessment_id) ?? []), doc]);
    }
    let stuckInScoring = 0;
    let wrongProfiles = 0;
    for (const { assessmentId } of completed) {
      const doc = assessments.get(assessmentId);
      if (doc?.status === 'scoring') stuckInScoring += 1;
      if (doc?.status !== 'completed') fail(`assessment ${assessmentId} is ${doc?.status ?? 'missing'} in the read models, not completed`);
      const inLog = scoredInLog.get(assessmentId) ?? 0;
      if (inLog !== 1) fail(`assessment ${assessmentId} has ${inLog} ScoringCompleted events in the log, not 1`);
      const its = profilesOf.get(assessmentId) ?? [];
      if (its.length !== 1) fail(`assessment ${assessmentId} has ${its.length} profiles, not 1`);
      else {
        const stored = its[0]!;
        if (stored.id !== doc?.profile_id)
          fail(`assessment ${assessmentId} names profile ${doc?.profile_id}, the read models hold ${stored.id}`);
        // The read models keep scores sealed: the API, which opens them, serves them.
        const profile = (await get(`/v1/nature/profiles/${stored.id as string}`)).body;
        if (
          !isDeepStrictEqual(profile.natures, knownProfile.natures) ||
          !isDeepStrictEqual(profile.intelligences, knownProfile.intelligences)
        ) {
          wrongProfiles += 1;
          fail(`profile ${profile.id} of ${assessmentId} does not have the known scores: an answer was lost or changed`);
        }
      }
      const events = completionEventsOf.get(assessmentId) ?? [];
      if (events.length !== 1) fail(`assessment ${assessmentId} has ${events.length} nature.assessment.completed events, not 1`);
    }
    // Nothing anywhere in the store is left in scoring, the suite's assessments or not.
    const scoringAnywhere = [...assessments.values()].filter((doc) => doc.status === 'scoring').length;
    if (scoringAnywhere > stuckInScoring) fail(`${scoringAnywhere} assessments are stuck in scoring`);
    stuckInScoring = Math.max(stuckInScoring, scoringAnywhere);

    // 3. Every completion was delivered at least once to each endpoint, with a valid signature.
    const completionIds = logRows.filter((row) => row.type === 'ScoringCompleted').map((row) => row.data.event_id as string);
    const delivery: string[] = [];
    receivers.forEach((receiver, index) => {
      const name = index === 0 ? 'A (always 200)' : 'B (503 to every 4th request)';
      const invalid = receiver.received.filter((r) => !r.verified.ok);
      for (const bad of invalid)
        fail(`endpoint ${name} received a delivery that does not verify: ${bad.verified.ok ? '' : bad.verified.error}`);
      const ids = deliveredIds(receiver.received);
      const undelivered = completionIds.filter((id) => !ids.has(id));
      for (const id of undelivered) fail(`completion event ${id} was never delivered (verified) to endpoint ${name}`);
      for (const r of receiver.received.filter((r) => r.verified.ok)) {
        const payload = (r.verified as { payload: Body }).payload;
        if (payload.type !== 'nature.assessment.completed' || payload.id !== r.headers['webhook-id']) {
          fail(`endpoint ${name} received an unexpected event: ${r.body.slice(0, 300)}`);
        }
      }
      delivery.push(
        `endpoint ${name}: ${receiver.received.length} requests, ${ids.size} distinct events verified, ${invalid.length} invalid signatures, ${undelivered.length} completions never delivered`,
      );
    });

    const bus = store.busStates('sandbox');
    const dead = Object.entries(bus)
      .filter(([name]) => name.endsWith(':dead'))
      .reduce((sum, [, n]) => sum + n, 0);
    if (dead > 0) fail(`${dead} webhook bus messages went dead: ${JSON.stringify(bus)}`);
    const errorLines = servers.reduce(
      (sum, s) =>
        sum +
        s
          .output()
          .split('\n')
          .filter((line) => /"level":(50|60)/.test(line)).length,
      0,
    );
    if (kills !== options.kills) fail(`${kills} kills happened, ${options.kills} were asked for`);
    if (completed.length !== options.assessments)
      fail(`${completed.length} of ${options.assessments} assessments were acknowledged in full`);
    store.close();

    const figures: CrashReport['figures'] = [
      ['seed', seed],
      ['assessments acknowledged in full', `${completed.length}/${options.assessments} (concurrency ${options.concurrency})`],
      ['kills (SIGKILL)', `${kills} (${killsDuringWorkload} during the workload, ${kills - killsDuringWorkload} while scoring/delivering)`],
      ['server starts', servers.length],
      [
        'requests answered',
        `${counts.answered} (2xx ${counts.byClass['2xx']}, 4xx ${counts.byClass['4xx']}, 5xx ${counts.byClass['5xx']})`,
      ],
      [
        'attempts without an answer',
        `${counts.unknownOutcomes} (server down or killed mid-request; each retried until answered, ${counts.recoveredBy409} with a 409 naming what the lost attempt had made)`,
      ],
      ['2xx writes checked in log + read models', writes.length],
      ...(keyed
        ? ([
            [
              'writes with an Idempotency-Key',
              `${counts.keyedWrites} (${writes.filter((w) => w.afterUnknownOutcome).length} answered only after a kill cut an attempt, ${rebuilt} of them drawn from the events the cut attempt wrote)`,
            ],
            ['replays compared', `${counts.replaysCompared} (each 2xx sent again with its key: same status and body, marked replayed)`],
            ['waits on idempotency_key_in_use', counts.keyInUse],
            ['409 answers', counts.conflicts],
          ] as [string, string | number][])
        : []),
      ['lost', lost],
      ['completions in the log', `${scoredInLog.size} assessments, ${[...scoredInLog.values()].filter((n) => n > 1).length} scored twice`],
      [
        'profiles / completion events',
        `${profiles.size} / ${[...completionEventsOf.values()].reduce((sum, list) => sum + list.length, 0)}`,
      ],
      ['profiles with wrong scores', wrongProfiles],
      ['stuck in scoring', stuckInScoring],
      ['webhook deliveries', delivery[0]!],
      ['', delivery[1]!],
      ['dead webhook messages', dead],
      ['server error log lines', errorLines],
      ['elapsed', `${((Date.now() - began) / 1000).toFixed(1)} s`],
      ['in short', `kills ${kills}, requests ${counts.answered}, lost ${lost}`],
    ];
    return { figures, failures, dataDir: dir.path };
  } finally {
    workloadDone = true;
    stopping = true;
    const last = await ready.catch(() => undefined);
    if (last) {
      last.process.kill('SIGKILL');
      await last.exited;
    }
    for (const receiver of [...receivers, sink]) await receiver.close();
    if (failures.length === 0 && !options.keepData) dir.cleanup();
  }
}

export function formatCrashReport(report: CrashReport): string {
  const width = Math.max(...report.figures.map(([name]) => name.length));
  const lines = ['crash suite figures:', ...report.figures.map(([name, value]) => `  ${name.padEnd(width)}  ${value}`)];
  if (report.failures.length > 0) {
    lines.push(
      `crash suite FAILED ${report.failures.length} check(s) (data kept in ${report.dataDir}):`,
      ...report.failures.slice(0, 100).map((line) => `  - ${line}`),
    );
    if (report.failures.length > 100) lines.push(`  … and ${report.failures.length - 100} more`);
  }
  return lines.join('\n');
}
