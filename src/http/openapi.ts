import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';

/** The OpenAPI 3.1 document, generated from the routes' zod schemas, and its docs UI. Both are public. */
export async function registerOpenApi(app: FastifyInstance): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Nature Profile API',
        version: '1.0.0-beta',
        description:
          'Subjects, the 76-item Multiple Natures / Multiple Intelligences assessment, scored profiles and signed webhooks. ' +
          'Authenticate with Authorization: Bearer <API key>; the key prefix (test_ or live_) picks the sandbox or production store. ' +
          'Errors are RFC 9457 application/problem+json bodies with a stable `code` and the `request_id`.',
      },
      components: { securitySchemes: { apiKey: { type: 'http', scheme: 'bearer', description: 'test_sk_…, live_sk_…, test_pk_… or live_pk_…' } } },
      security: [{ apiKey: [] }],
    },
    transform: jsonSchemaTransform,
    transformObject: jsonSchemaTransformObject,
  });
  await app.register(swaggerUi, { routePrefix: '/v1/docs' });
  app.get('/v1/openapi.json', { schema: { hide: true } }, () => app.swagger());
}
