import type { FastifyInstance } from 'fastify';
import { environments } from '../../domain/api-keys.js';
import type { KeyStore } from '../../ports/key-store.js';
import type { Environments } from '../../wiring/environments.js';

const PING_TIMEOUT_MS = 2000;

function withTimeout(work: Promise<void>): Promise<void> {
  return Promise.race([
    work,
    new Promise<void>((_, reject) => setTimeout(() => reject(new Error(`no answer in ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS).unref()),
  ]);
}

type Probe = () => Promise<void>;

/** Checks that the process adds beside the app's own stores (the data directory), per app. */
const addedChecks = new WeakMap<FastifyInstance, [string, Probe][]>();

/** Adds a readiness check named `name`: /readyz answers 503 naming it while `probe` fails. */
export function addReadinessCheck(app: FastifyInstance, name: string, probe: Probe): void {
  addedChecks.set(app, [...(addedChecks.get(app) ?? []), [name, probe]]);
}

/**
 * Liveness (the process answers) and readiness (it can take writes). Readiness is 503 only when a store that
 * writes need does not answer; a bus that does not answer leaves it 200 with `"status": "degraded"`, since
 * writes go on and their webhooks wait in the log until the bus is back: a load balancer keeps the replica
 * in rotation. Both routes are public, so readiness says only which backend is unavailable; the reason goes
 * to the log. It also says, per environment, whether this replica leads (runs the projections, reactors and
 * webhook delivery) or follows: a follower serves HTTP as well, so it is as ready as the leader.
 */
export function registerHealthRoutes(app: FastifyInstance, envs: Environments, keys: KeyStore): void {
  app.get('/healthz', { schema: { hide: true } }, () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    const probes: [string, Probe][] = [['keys', () => keys.ping()]];
    /** What may be down while writes are still taken. */
    const degradable = new Set<string>();
    for (const environment of environments) {
      const env = envs[environment];
      probes.push(
        [`${environment}.event_store`, () => env.events.ping()],
        [`${environment}.read_models`, () => env.readModels.ping()],
        [`${environment}.idempotency`, () => env.idempotency.ping()],
        [`${environment}.bus`, () => env.bus.ping()],
      );
      degradable.add(`${environment}.bus`);
    }
    probes.push(...(addedChecks.get(app) ?? []));
    const checks: Record<string, 'ok' | 'unavailable'> = {};
    await Promise.all(
      probes.map(async ([name, ping]) => {
        try {
          await withTimeout(ping());
          checks[name] = 'ok';
        } catch (error) {
          checks[name] = 'unavailable';
          request.log.warn({ err: error, check: name }, 'readiness check failed');
        }
      }),
    );
    const down = Object.keys(checks).filter((name) => checks[name] !== 'ok');
    const status = down.length === 0 ? 'ready' : down.every((name) => degradable.has(name)) ? 'degraded' : 'unavailable';
    const roles = Object.fromEntries(environments.map((environment) => [environment, envs[environment].leadership.role]));
    return reply
      .code(status === 'unavailable' ? 503 : 200)
      .send({ status, checks: Object.fromEntries(probes.map(([name]) => [name, checks[name]])), roles });
  });
}
