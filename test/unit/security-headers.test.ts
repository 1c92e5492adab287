import helmet from '@fastify/helmet';
import Fastify from 'fastify';
import { expect, it } from 'vitest';
import { SECURITY_HEADERS } from '../../src/http/security-headers.js';

/** What fastify sends on its own, helmet or not. */
const FASTIFY_OWN = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive']);

it('are, header by header, the bytes helmet sent with the options the service registered it with', async () => {
  const app = Fastify();
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: { 'default-src': ["'none'"], 'frame-ancestors': ["'none'"], 'base-uri': ["'none'"], 'form-action': ["'none'"] },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    crossOriginResourcePolicy: false,
  });
  app.get('/', async () => ({}));
  try {
    const answer = await app.inject({ url: '/' });
    const helmets = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !FASTIFY_OWN.has(name)));
    expect(SECURITY_HEADERS).toEqual(helmets);
  } finally {
    await app.close();
  }
});
