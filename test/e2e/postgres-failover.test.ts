import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { knownProfile, knownResponses } from '../support/known-answers.js';
import { postgresBinDir, type ReplicatedPostgres, startReplicatedPostgres } from '../support/postgres-cluster.js';
import { type ServerProcess, startServer } from '../support/processes.js';
import { startReceiver } from '../support/receiver.js';
import { tempDir } from '../support/temp-dir.js';
import { validSubject } from '../support/test-app.js';

type Body = Record<string, any>;

/** Clients at work together, each completing this many assessments one after the other. */
const CLIENTS = 8;
const ASSESSMENTS_PER_CLIENT = 2;
/** The 76 answers in this many PATCHes: the last one completes the assessment. */
const BATCHES = 4;
/** Writes each assessment makes: the subject, the start, the batches. */
const WRITES = CLIENTS * ASSESSMENTS_PER_CLIENT * (2 + BATCHES);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A write the service answered 2xx, to be found after the failover. */
interface Acknowledged {
  kind: 'subject' | 'assessment' | 'batch';
  path: string;
  body: Body;
  items?: string[];
}

/** Everything the clients saw: every status, and how each 503 was answered. */
class Tally {
  readonly statuses = new Map<number, number>();
  readonly acknowledged: Acknowledged[] = [];
  readonly completed: { subjectId: string; assessmentId: string }[] = [];
  readonly badUnavailable: string[] = [];
  /** 503s answered after the primary was killed. */
  unavailableAfterKill = 0;
  killed = false;
  private readonly waiters: (() => void)[] = [];

  saw(status: number, retryAfter: string | null, body: Body): void {
    this.statuses.set(status, (this.statuses.get(status) ?? 0) + 1);
    if (status === 503) {
      if (retryAfter === null || body.code !== 'service_unavailable') this.badUnavailable.push(`${retryAfter} ${JSON.stringify(body)}`);
      if (this.killed) this.unavailableAfterKill += 1;
    }
    for (const wake of this.waiters.splice(0)) wake();
  }

  /** Resolves once `done` holds, checked after every answer (fails after `ms`: a bound for a hung run, never a pace). */
  async until(done: () => boolean, what: string, ms = 90_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`never happened within ${ms} ms: ${what}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 250);
      });
    }
  }
}

/**
 * One caller: each write under its own Idempotency-Key, sent again with it after a 503 once Retry-After has passed
 * (and after a 409 idempotency_key_in_use, the key's first request still running), as a real caller would.
 */
function caller(server: ServerProcess, key: string, tally: Tally, name: string) {
  let keys = 0;
  async function write(method: string, path: string, body: unknown): Promise<{ status: number; body: Body }> {
    const idempotencyKey = `${name}-${++keys}`;
    for (let attempt = 1; attempt <= 200; attempt++) {
      const response = await fetch(`${server.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(120_000),
      });
      const answer = (await response.json()) as Body;
      tally.saw(response.status, response.headers.get('retry-after'), answer);
      if (response.status === 503) await sleep(Number(response.headers.get('retry-after') ?? 1) * 1000);
      else if (response.status === 409 && answer.code === 'idempotency_key_in_use') await sleep(100);
      else return { status: response.status, body: answer };
    }
    throw new Error(`${method} ${path}: never answered but 503 or 409 in 200 attempts`);
  }
  return write;
}

/** One client's assessments: subject, start, the answers in batches; each 2xx kept as acknowledged. */
async function runClient(server: ServerProcess, key: string, tally: Tally, client: number): Promise<void> {
  const write = caller(server, key, tally, `failover-${client}`);
  const size = Math.ceil(knownResponses.length / BATCHES);
  for (let n = 0; n < ASSESSMENTS_PER_CLIENT; n++) {
    const subject = await write('POST', '/v1/nature/subjects', validSubject(`failover-${client}-${n}`));
    expect(subject.status, JSON.stringify(subject.body)).toBe(201);
    tally.acknowledged.push({ kind: 'subject', path: `/v1/nature/subjects/${subject.body.id}`, body: subject.body });
    const assessment = await write('POST', `/v1/nature/subjects/${subject.body.id}/assessments`, {});
    expect(assessment.status, JSON.stringify(assessment.body)).toBe(201);
    const path = `/v1/nature/subjects/${subject.body.id}/assessments/${assessment.body.id}`;
    tally.acknowledged.push({ kind: 'assessment', path, body: assessment.body });
    for (let start = 0; start < knownResponses.length; start += size) {
      const responses = knownResponses.slice(start, start + size);
      const batch = await write('PATCH', path, { responses });
      expect(batch.status, JSON.stringify(batch.body)).toBe(200);
      tally.acknowledged.push({ kind: 'batch', path, body: batch.body, items: responses.map((r) => r.item_id) });
    }
    tally.completed.push({ subjectId: subject.body.id, assessmentId: assessment.body.id });
  }
}

/** What the new primary holds: the completions in the log, and the profiles and completion events in the read models. */
async function stored(url: string) {
  const sql = postgres(url, { max: 1, onnotice: () => undefined });
  try {
    const scored = await sql<{ assessment_id: string; event_id: string }[]>`
      SELECT data->>'assessment_id' AS assessment_id, data->>'event_id' AS event_id
      FROM nature_sandbox.events WHERE type = 'ScoringCompleted'`;
    const profiles = await sql<{ assessment_id: string }[]>`
      SELECT doc->>'assessment_id' AS assessment_id FROM nature_sandbox.documents
      WHERE collection = 'profiles' AND doc IS NOT NULL`;
    const completions = await sql<{ assessment_id: string; id: string }[]>`
      SELECT doc->'data'->>'assessment_id' AS assessment_id, doc->>'id' AS id FROM nature_sandbox.documents
      WHERE collection = 'events' AND doc->>'type' = 'nature.assessment.completed'`;
    const made = await sql<{ type: string; n: number }[]>`
      SELECT type, count(*)::int AS n FROM nature_sandbox.events
      WHERE type IN ('SubjectCreated', 'AssessmentStarted') GROUP BY type`;
    const positions = await sql<{ position: bigint }[]>`SELECT position FROM nature_sandbox.events ORDER BY position`;
    // The service's listening connections (one per environment's log), each idle after its LISTEN.
    const [listening] = await sql<{ n: number }[]>`
      SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE application_name = 'nature-profile-api' AND query ILIKE 'listen %'`;
    return {
      scored,
      profiles,
      completions,
      made: Object.fromEntries(made.map((row) => [row.type, row.n])),
      positions: positions.map((row) => row.position),
      listening: listening!.n,
    };
  } finally {
    await sql.end();
  }
}

const perAssessment = (rows: { assessment_id: string }[]) => {
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(row.assessment_id, (counts.get(row.assessment_id) ?? 0) + 1);
  return counts;
};

describe.skipIf(postgresBinDir === undefined)('PostgreSQL failover to a synchronous standby', () => {
  let pg: ReplicatedPostgres | undefined;
  let server: ServerProcess | undefined;
  const dir = tempDir('nature-failover-');
  afterAll(async () => {
    server?.process.kill('SIGKILL');
    await server?.exited;
    await pg?.stop();
    dir.cleanup();
  });

  it('loses no acknowledged write, scores each completion once, delivers every webhook, and answers the gap 503', async () => {
    pg = await startReplicatedPostgres();
    const url = await pg.createDatabase();
    const env = {
      NATURE_DATA_DIR: dir.path,
      NATURE_EVENT_STORE: 'postgres',
      NATURE_READ_MODELS: 'postgres',
      POSTGRES_URL: url,
      NATURE_WEBHOOK_RETRY_SCHEDULE: '200ms,200ms,400ms,800ms,1s,1s,2s,2s,2s,2s,2s,2s',
      NATURE_RATE_LIMIT_PER_SECOND: '1000000',
      NATURE_RATE_LIMIT_BURST: '1000000',
    };
    const minted = await runCliInProcess(keyCreateArgs('test', 'failover'), env);
    expect(minted.status, minted.stderr).toBe(0);
    const key = (JSON.parse(minted.stdout) as { key: string }).key;
    server = await startServer(env);
    const receiver = await startReceiver(() => 200);
    try {
      const tally = new Tally();
      const endpoint = await caller(server, key, tally, 'endpoint')('POST', '/v1/nature/webhook_endpoints', { url: receiver.url });
      expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
      receiver.useSecret(endpoint.body.secret as string);

      const running = Promise.all(Array.from({ length: CLIENTS }, (_, client) => runClient(server!, key, tally, client)));
      // Awaited below; a client failing while the test waits for the gap is reported there, not as unhandled.
      running.catch(() => undefined);
      // Mid-run: the primary dies once a third of the writes are acknowledged, the standby is promoted once the
      // clients have met the gap (503s after the kill), and the service must find the new primary by itself.
      await tally.until(() => tally.acknowledged.length >= WRITES / 3, 'a third of the writes acknowledged');
      tally.killed = true;
      await pg.killPrimary();
      await tally.until(() => tally.unavailableAfterKill >= CLIENTS, 'the clients answered 503 in the gap');
      await pg.promote();
      await running;
      console.info(`failover: statuses ${JSON.stringify(Object.fromEntries(tally.statuses))}`);

      const scoredAll = async () => {
        const now = await stored(url);
        const delivered = new Set(receiver.received.filter((r) => r.verified.ok).map((r) => String(r.headers['webhook-id'])));
        const done =
          perAssessment(now.scored).size >= tally.completed.length &&
          now.scored.every((row) => delivered.has(row.event_id)) &&
          now.listening >= 2;
        return done ? now : undefined;
      };
      let after = await scoredAll();
      for (const deadline = Date.now() + 90_000; after === undefined && Date.now() < deadline; after = await scoredAll()) await sleep(200);
      const final = after ?? (await stored(url));

      // Every status the clients saw: 2xx, and 503 service_unavailable with Retry-After in the gap; never a 500.
      const statuses = Object.fromEntries(tally.statuses);
      expect(
        Object.keys(statuses).filter((status) => Number(status) >= 500 && status !== '503'),
        JSON.stringify(statuses),
      ).toEqual([]);
      expect(tally.badUnavailable).toEqual([]);
      expect(tally.unavailableAfterKill).toBeGreaterThanOrEqual(CLIENTS);
      expect(tally.completed).toHaveLength(CLIENTS * ASSESSMENTS_PER_CLIENT);

      // 0 acknowledged writes lost: each is served after the failover as it was acknowledged.
      const lost: string[] = [];
      for (const write of tally.acknowledged) {
        const response = await fetch(`${server.url}${write.path}`, { headers: { authorization: `Bearer ${key}` } });
        const body = (await response.json()) as Body;
        const missing =
          response.status !== 200 ||
          (write.kind === 'subject' && body.id !== write.body.id) ||
          (write.kind === 'batch' && write.items!.some((item) => (body.unanswered_item_ids as string[]).includes(item)));
        if (missing) lost.push(`${write.kind} ${write.path}: ${response.status} ${JSON.stringify(body).slice(0, 300)}`);
      }
      expect(lost).toEqual([]);
      // Nothing done twice by a retry: one subject and one assessment per one the clients were answered.
      const assessments = CLIENTS * ASSESSMENTS_PER_CLIENT;
      expect(final.made).toEqual({ SubjectCreated: assessments, AssessmentStarted: assessments });

      // Every completion scored exactly once: one ScoringCompleted, one profile, one completion event, the known scores.
      const completedIds = tally.completed.map(({ assessmentId }) => assessmentId).sort();
      for (const rows of [final.scored, final.profiles, final.completions]) {
        const counts = perAssessment(rows);
        expect([...counts.keys()].sort()).toEqual(completedIds);
        expect(
          [...counts.values()].every((n) => n === 1),
          JSON.stringify([...counts]),
        ).toBe(true);
      }
      for (const { subjectId } of tally.completed) {
        const profile = await fetch(`${server.url}/v1/nature/subjects/${subjectId}/profile`, {
          headers: { authorization: `Bearer ${key}` },
        });
        expect(((await profile.json()) as Body).natures).toEqual(knownProfile.natures);
      }
      // Both logs listen again for appends, on the new primary.
      expect(final.listening).toBeGreaterThanOrEqual(2);
      // The log's positions went on from where the old primary left them, each once.
      expect(new Set(final.positions).size).toBe(final.positions.length);

      // Every completion delivered at least once, verified; a repeat carries the same id, and no other id came.
      const verified = receiver.received.filter((r) => r.verified.ok);
      expect(verified).toHaveLength(receiver.received.length);
      for (const r of verified) expect((r.verified as { payload: Body }).payload.id).toBe(r.headers['webhook-id']);
      const deliveredIds = new Set(verified.map((r) => String(r.headers['webhook-id'])));
      expect([...deliveredIds].sort()).toEqual(final.completions.map((row) => row.id).sort());
      expect(new Set(final.scored.map((row) => row.event_id))).toEqual(deliveredIds);
    } catch (error) {
      // What the server said is where a failure's cause shows.
      console.error(`the server's last output:\n${server.output().slice(-6000)}`);
      throw error;
    } finally {
      await receiver.close();
    }
  }, 240_000);
});
