import type { FastifyInstance } from 'fastify';
import { environments } from '../../domain/api-keys.js';
import type { Environments } from '../../environments.js';
import type { KeyStore } from '../../ports/key-store.js';

const PING_TIMEOUT_MS = 2000;

function withTimeout(work: Promise<void>): Promise<void> {
  return Promise.race([work, new Promise<void>((_, reject) => setTimeout(() => reject(new Error(`no answer in ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS).unref())]);
}

/**
 * Liveness (the process answers) and readiness (every backend answers). Both are public, so readiness
 * says only which backend is unavailable; the reason goes to the log.
 */
export function registerHealthRoutes(app: FastifyInstance, envs: Environments, keys: KeyStore): void {
  app.get('/healthz', { schema: { hide: true } }, () => ({ status: 'ok' }));

  app.get('/readyz', { schema: { hide: true } }, async (request, reply) => {
    const probes: [string, () => Promise<void>][] = [['keys', () => keys.ping()]];
    for (const environment of environments) {
      const env = envs[environment];
      probes.push([`${environment}.event_store`, () => env.events.ping()], [`${environment}.read_models`, () => env.readModels.ping()], [`${environment}.bus`, () => env.bus.ping()]);
    }
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
    const ready = Object.values(checks).every((status) => status === 'ok');
    return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'unavailable', checks: Object.fromEntries(probes.map(([name]) => [name, checks[name]])) });
  });
}
