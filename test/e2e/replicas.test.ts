import postgres from 'postgres';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { mintKeysInto } from '../support/keys.js';
import { batches, knownProfile } from '../support/known-answers.js';
import { type NatsServer, natsServerPath, startNatsServer } from '../support/nats-server.js';
import { postgresBinDir, sharedPostgres } from '../support/postgres-cluster.js';
import { type ServerProcess, serverPool } from '../support/processes.js';
import { type Received, receiverPool } from '../support/receiver.js';
import { StoreReader } from '../support/stores.js';
import { tempDir } from '../support/temp-dir.js';
import { validSubject } from '../support/test-app.js';

/** Subjects taken through a whole assessment, `CONCURRENCY` at a time; every fourth is erased once its webhook has arrived. */
const SUBJECTS = 24;
const CONCURRENCY = 8;
const erasedAfterCompletion = (i: number) => i % 4 === 3;

type Answer = { status: number; body: Record<string, any> };

/**
 * The replicas a test runs on one data directory (and one nats-server), and a caller that spreads its
 * requests over them in turn. A replica killed on purpose is taken out first; a request it cut off is sent
 * again to another, as a caller behind a load balancer would.
 */
class Replicas {
  readonly live: ServerProcess[];
  private turn = 0;
  /** Requests sent again because the replica that had them was killed. */
  cutOff = 0;

  constructor(
    servers: ServerProcess[],
    private readonly key: string,
  ) {
    this.live = [...servers];
  }

  async call(method: string, path: string, body?: unknown): Promise<Answer & { resent: boolean }> {
    for (let resent = false; ; resent = true) {
      const server = this.live[this.turn++ % this.live.length]!;
      try {
        const response = await fetch(`${server.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${this.key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
          ...(body !== undefined && { body: JSON.stringify(body) }),
        });
        return { status: response.status, body: (await response.json()) as Record<string, any>, resent };
      } catch (error) {
        if (this.live.includes(server)) throw error;
        this.cutOff += 1;
      }
    }
  }

  /** The replica that leads the sandbox, by what each says in /readyz (the one to kill). */
  async sandboxLeader(): Promise<ServerProcess> {
    return eventually(async () => {
      for (const server of this.live) {
        const ready = (await (await fetch(`${server.url}/readyz`)).json()) as { roles: Record<string, string> };
        if (ready.roles.test === 'leader') return server;
      }
      return undefined;
    }, 20_000);
  }

  async readiness(): Promise<{ status: number; roles: Record<string, string> }[]> {
    return Promise.all(
      this.live.map(async (server) => {
        const response = await fetch(`${server.url}/readyz`);
        return { status: response.status, roles: ((await response.json()) as { roles: Record<string, string> }).roles };
      }),
    );
  }

  /** Takes the replica out of the rotation, then kills it with SIGKILL. */
  async kill(server: ServerProcess, pool: ReturnType<typeof serverPool>): Promise<void> {
    this.live.splice(this.live.indexOf(server), 1);
    await pool.kill(server);
  }
}

interface Workload {
  subjects: { subjectId: string; assessmentId: string; erased: boolean }[];
  /** Answers 404 for a resource this caller had been answered 2xx for, sent again: only while no replica led (after a kill). */
  notYetProjected: number;
}

/**
 * Each subject: created, an assessment started, the known answers in 4 batches, every request to the next
 * replica; every fourth erased once its completion webhook has arrived. `halfway` runs once, when a third of
 * the assessments are complete. An answer that tells of the lost attempt's work (a 409 naming what it made, a
 * 410 after an erasure) counts as the answer of a request sent again; with `tolerateLag`, so does a 404 for what
 * the caller made, sent again a moment later.
 */
async function runWorkload(
  replicas: Replicas,
  received: Received[],
  options: { halfway?: () => Promise<void>; tolerateLag: boolean },
): Promise<Workload> {
  const workload: Workload = { subjects: [], notYetProjected: 0 };
  let completed = 0;
  let halfway: Promise<void> | undefined;
  const expect2xx = async (
    method: string,
    path: string,
    body: unknown,
    accept: (answer: Answer) => boolean = () => false,
  ): Promise<Answer> => {
    for (;;) {
      const answer = await replicas.call(method, path, body);
      if (answer.status < 300 || (answer.resent && accept(answer))) return answer;
      if (answer.status === 404 && options.tolerateLag) {
        workload.notYetProjected += 1;
        await new Promise((resolve) => setTimeout(resolve, 200));
        continue;
      }
      throw new Error(`${method} ${path} answered ${answer.status}: ${JSON.stringify(answer.body)}`);
    }
  };
  const one = async (i: number) => {
    const created = await expect2xx('POST', '/v1/nature/subjects', validSubject(`replica-${i}`), (a) => a.body.code === 'subject_exists');
    const subjectId = (created.body.subject_id ?? created.body.id) as string;
    const started = await expect2xx(
      'POST',
      `/v1/nature/subjects/${subjectId}/assessments`,
      {},
      (a) => a.body.code === 'assessment_in_progress',
    );
    const assessmentId = (started.body.assessment_id ?? started.body.id) as string;
    for (const responses of batches(4)) {
      await expect2xx(
        'PATCH',
        `/v1/nature/subjects/${subjectId}/assessments/${assessmentId}`,
        { responses },
        (a) => a.body.code === 'assessment_not_open',
      );
    }
    completed += 1;
    if (options.halfway !== undefined && completed === Math.ceil(SUBJECTS / 3)) halfway = options.halfway();
    const erased = erasedAfterCompletion(i);
    if (erased) {
      await eventually(
        async () => (received.some((r) => JSON.parse(r.body).data?.assessment_id === assessmentId) ? true : undefined),
        90_000,
      );
      await expect2xx('DELETE', `/v1/nature/subjects/${subjectId}`, undefined, (a) => a.status === 410);
    }
    workload.subjects.push({ subjectId, assessmentId, erased });
  };
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < SUBJECTS) await one(next++);
    }),
  );
  await halfway;
  return workload;
}

/** A request on every live replica: each answers the same. */
async function onEach(replicas: Replicas, key: string, path: string): Promise<Answer[]> {
  return Promise.all(
    replicas.live.map(async (server) => {
      const response = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${key}` } });
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    }),
  );
}

/** `postgres`: every store on one PostgreSQL (the log, the read models, the keys, the bus), nothing shared on disk but the master key. */
function replicaSuite(bus: 'local' | 'nats' | 'postgres') {
  let dir: ReturnType<typeof tempDir>;
  let nats: NatsServer | undefined;
  let postgresUrl: string | undefined;
  let env: Record<string, string>;
  const cluster = bus === 'postgres' ? sharedPostgres() : undefined;
  afterAll(() => cluster?.stopShared());
  const pool = serverPool(() => env);
  const receivers = receiverPool();

  beforeEach(async () => {
    dir = tempDir();
    nats = bus === 'nats' ? await startNatsServer() : undefined;
    postgresUrl = cluster === undefined ? undefined : await (await cluster.cluster()).createDatabase();
    env = {
      NATURE_DATA_DIR: dir.path,
      // A replica killed with SIGKILL keeps the lease this long; the other takes over within it and a third more.
      NATURE_LEADER_LEASE_MS: '2000',
      NATURE_WEBHOOK_RETRY_SCHEDULE: '200ms,500ms,1s',
      NATURE_WEBHOOK_TIMEOUT_MS: '5000',
      NATURE_RATE_LIMIT_PER_SECOND: '100000',
      NATURE_RATE_LIMIT_BURST: '100000',
      ...(nats !== undefined && { NATURE_BUS: 'nats', NATS_URL: nats.url }),
      ...(postgresUrl !== undefined && { NATURE_EVENT_STORE: 'postgres', NATURE_READ_MODELS: 'postgres', POSTGRES_URL: postgresUrl }),
    };
  });
  afterEach(async () => {
    await pool.killAll();
    await receivers.closeAll();
    await nats?.stop();
    dir.cleanup();
  });

  /** Two replicas on the same stores, a webhook endpoint, and an endpoint deleted before the workload. */
  async function setUp() {
    const [key] = await mintKeysInto(dir.path, [{ environment: 'test', type: 'sk', scopes: ['nature:read', 'nature:write'] }]);
    // On PostgreSQL the keys are kept there: the key minted into keys.db moves as an operator moves it.
    if (postgresUrl !== undefined) expect((await runCliInProcess(['keys', 'import'], env)).status).toBe(0);
    const servers = await Promise.all([pool.start(), pool.start()]);
    const replicas = new Replicas(servers, key!);
    const receiver = await receivers.start();
    const endpoint = await replicas.call('POST', '/v1/nature/webhook_endpoints', { url: receiver.url });
    expect(endpoint.status).toBe(201);
    receiver.useSecret(endpoint.body.secret);
    const removed = await receivers.start();
    const removedEndpoint = await replicas.call('POST', '/v1/nature/webhook_endpoints', { url: removed.url });
    expect((await replicas.call('DELETE', `/v1/nature/webhook_endpoints/${removedEndpoint.body.id}`)).status).toBe(200);
    return { key: key!, servers, replicas, receiver, removed, removedEndpointId: removedEndpoint.body.id as string };
  }

  /**
   * What one replica would have left: every assessment scored once with the known profile (readable on every
   * replica), erased subjects gone on every replica, one ScoringCompleted and one publication per completion in
   * the log, every completion delivered (verified) to the endpoint, nothing to the deleted endpoint.
   * Returns each webhook id with how often it arrived.
   */
  async function checkOutcome(setup: Awaited<ReturnType<typeof setUp>>, workload: Workload): Promise<Map<string, number>> {
    const { key, replicas, receiver, removed, removedEndpointId } = setup;
    expect(workload.subjects).toHaveLength(SUBJECTS);
    for (const { subjectId, assessmentId, erased } of workload.subjects) {
      const assessment = (await replicas.call('GET', `/v1/nature/subjects/${subjectId}/assessments/${assessmentId}`)).body;
      if (erased) {
        for (const answer of await onEach(replicas, key, `/v1/nature/subjects/${subjectId}`)) expect(answer.status).toBe(410);
        continue;
      }
      expect(assessment.status).toBe('completed');
      for (const answer of await onEach(replicas, key, `/v1/nature/subjects/${subjectId}/profile`)) {
        expect(answer.status).toBe(200);
        expect(answer.body).toMatchObject({
          assessment_id: assessmentId,
          natures: knownProfile.natures,
          intelligences: knownProfile.intelligences,
        });
      }
    }

    const stored = await storedOutcome();
    {
      const { log } = stored;
      const scorings = log.filter((row) => row.type === 'ScoringCompleted');
      const assessments = workload.subjects.map((s) => `assessment-${s.assessmentId}`).sort();
      expect(scorings.map((row) => row.stream_name).sort()).toEqual(assessments);
      const completionIds = scorings.map((row) => row.data.event_id as string).sort();
      const publications = log.filter((row) => row.type === 'NotificationPublished').map((row) => row.data.event_id as string);
      // Each announced event (completions, and the subjects' and assessments' lifecycle) published once: every
      // completion by now, and nothing that is no event of the log.
      const announced = log.filter((row) => row.type !== 'NotificationPublished' && typeof row.data.event_id === 'string');
      expect(new Set(publications).size).toBe(publications.length);
      expect(completionIds.filter((id) => !publications.includes(id))).toEqual([]);
      expect(publications.filter((id) => !announced.some((row) => row.data.event_id === id))).toEqual([]);
      // The deleted endpoint stays deleted: no replica brought it back.
      expect(stored.endpointIds.has(removedEndpointId)).toBe(false);

      await eventually(
        async () => (new Set(receiver.received.map((r) => r.headers['webhook-id'])).size >= completionIds.length ? true : undefined),
        120_000,
      );
      expect(receiver.received.filter((r) => !r.verified.ok)).toEqual([]);
      const deliveries = new Map<string, number>();
      for (const r of receiver.received)
        deliveries.set(r.headers['webhook-id'] as string, (deliveries.get(r.headers['webhook-id'] as string) ?? 0) + 1);
      expect([...deliveries.keys()].sort()).toEqual(completionIds);
      expect(removed.received).toEqual([]);
      return deliveries;
    }
  }

  /** The sandbox's log and its webhook endpoints' ids, as the stores hold them (the files, or the PostgreSQL schema). */
  async function storedOutcome(): Promise<{
    log: { type: string; stream_name: string; data: Record<string, any> }[];
    endpointIds: Set<string>;
  }> {
    if (postgresUrl !== undefined) {
      const sql = postgres(postgresUrl, { max: 1, onnotice: () => undefined });
      try {
        const log = await sql<{ type: string; stream_name: string; data: Record<string, any> }[]>`
          SELECT type, stream_name, data FROM nature_sandbox.events ORDER BY position`;
        const endpoints = await sql<{ id: string }[]>`
          SELECT id FROM nature_sandbox.documents WHERE collection = 'webhook_endpoints' AND doc IS NOT NULL`;
        return { log: [...log], endpointIds: new Set(endpoints.map((row) => row.id)) };
      } finally {
        await sql.end();
      }
    }
    const reader = new StoreReader(dir.path);
    try {
      return { log: reader.log('sandbox'), endpointIds: new Set(reader.documents('sandbox', 'webhook_endpoints').keys()) };
    } finally {
      reader.close();
    }
  }

  it('serves a load spread over two replicas as one would: every assessment scored once, every completion delivered once', {
    timeout: 180_000,
  }, async () => {
    const setup = await setUp();
    const workload = await runWorkload(setup.replicas, setup.receiver.received, { tolerateLag: false });
    const deliveries = await checkOutcome(setup, workload);
    expect([...deliveries.values()].filter((count) => count > 1)).toEqual([]);
    // Both ready; one leads each environment, the other follows.
    const readiness = await setup.replicas.readiness();
    expect(readiness.map((r) => r.status)).toEqual([200, 200]);
    for (const environment of ['test', 'live']) expect(readiness.map((r) => r.roles[environment]).sort()).toEqual(['follower', 'leader']);
    // Only the sandbox's leader delivered its webhooks; the follower served requests only.
    const attempts = setup.servers.map(
      (server) =>
        server
          .output()
          .split('\n')
          .filter((line) => line.includes('"msg":"webhook attempt"')).length,
    );
    expect(attempts.sort()).toEqual([0, deliveries.size]);
    expect(setup.servers.map((server) => server.output().includes('"msg":"request completed"'))).toEqual([true, true]);
    // Neither replica logged an error.
    for (const server of setup.servers)
      expect(
        server
          .output()
          .split('\n')
          .filter((line) => /"level":(50|60)/.test(line)),
      ).toEqual([]);
    console.info(`[replicas ${bus}] ${SUBJECTS} assessments, ${deliveries.size} completions delivered once each`);
  });

  it('finishes everything when the leader is killed with SIGKILL in the middle: the other replica takes over', {
    timeout: 240_000,
  }, async () => {
    const setup = await setUp();
    const { replicas } = setup;
    let killed: ServerProcess | undefined;
    const workload = await runWorkload(replicas, setup.receiver.received, {
      tolerateLag: true,
      halfway: async () => {
        killed = await replicas.sandboxLeader();
        await replicas.kill(killed, pool);
      },
    });
    expect(killed).toBeDefined();
    expect(replicas.live).toHaveLength(1);
    const deliveries = await checkOutcome(setup, workload);
    // Deliveries are at least once: one under way when the leader died is sent again by the new leader.
    const repeated = [...deliveries.values()].filter((count) => count > 1).length;
    // The survivor leads both environments (the production one too, once its lease has expired).
    const survivor = await eventually(async () => {
      const [ready] = await replicas.readiness();
      return ready!.roles.live === 'leader' ? ready : undefined;
    });
    expect(survivor).toEqual({ status: 200, roles: { test: 'leader', live: 'leader' } });
    console.info(
      `[replicas ${bus}, leader killed] ${SUBJECTS} assessments, ${deliveries.size} completions delivered (${repeated} more than once), ` +
        `${replicas.cutOff} requests cut off and sent again, ${workload.notYetProjected} answers 404 while no replica led`,
    );
  });
}

describe('two replicas on the embedded default (one data directory)', () => {
  replicaSuite('local');
});

if (natsServerPath === undefined)
  console.error('\n!!! REPLICA TESTS ON NATS SKIPPED: nats-server is not installed (apt-get install -y nats-server).\n');
describe.skipIf(natsServerPath === undefined)('two replicas on NATS (a real nats-server) and one data directory', () => {
  replicaSuite('nats');
});

describe.skipIf(postgresBinDir === undefined)('two replicas on one PostgreSQL (every store, the bus too)', () => {
  replicaSuite('postgres');
});
