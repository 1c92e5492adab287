import swagger, { type SwaggerTransform, type SwaggerTransformObject } from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { jsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import packageJson from '../../package.json' with { type: 'json' };
import type { Config } from '../settings/config.js';
import { guides } from './docs/render.js';
import { exampleOf } from './openapi-examples.js';
import { codesOf, headers, type Json, KEYED_METHODS, problemResponse, problemSchemas, responseName } from './openapi-problems.js';
import { webhooks } from './openapi-webhooks.js';
import { originOf } from './origin.js';
import type { ProblemCode } from './problem.js';
import { problemCodes } from './problem.js';
import { ONET_ATTRIBUTION } from './routes/careers-schemas.js';
import { problemCodesOf } from './schemas.js';
import { apiReferencePolicy } from './security-headers.js';

const description = `Subjects, the 76-item Multiple Natures / Multiple Intelligences assessment, scored profiles and signed webhooks.

Authenticate every request with \`Authorization: Bearer <API key>\`. The key's prefix picks the store: \`test_\` keys
the sandbox, \`live_\` keys production; a resource of the other environment answers 404. Secret (\`sk\`) keys may do what
their scopes allow (\`GET\` needs \`nature:read\`; \`POST\`, \`PATCH\`, \`DELETE\` need \`nature:write\`; the careers routes
need \`careers:read\`); publishable (\`pk\`)
keys, for browsers, may read the item bank, and read and answer one assessment with its client secret in the
\`Nature-Client-Secret\` header (and, when the assessment was started with \`result_visible_to_subject\`, read its
profile and the profile's chart for 24 hours after completion).

Errors are RFC 9457 \`application/problem+json\` bodies with a stable \`code\` and the \`request_id\` of the
\`request-id\` header. Writes (\`POST\`, \`PATCH\`) take an \`Idempotency-Key\`: the first answer is stored for 24 hours and
replayed with \`idempotent-replayed: true\`. Unknown fields, in the body or the query, are refused with 422.

Guides, served by this server: ${guides.map(({ slug, title }) => `[${title}](/docs/${slug})`).join(', ')}.`;

const tags = [
  { name: 'subjects', description: 'The people to be assessed, their consent, erasure and audit trail.' },
  { name: 'assessments', description: 'The item bank, and assessments: started, answered in batches, scored by themselves.' },
  { name: 'profiles', description: 'Scored profiles: 9 Nature and 10 Intelligence scores with short narratives, and their charts.' },
  { name: 'webhooks', description: 'Webhook endpoints, their delivery attempts, and the events they are sent.' },
  { name: 'usage', description: 'Metered usage: completed assessments per key and period.' },
  {
    name: 'careers',
    description: `O*NET occupations and their titles, searched and matched to a profile (scope careers:read). ${ONET_ATTRIBUTION}`,
  },
  {
    name: 'situational',
    description:
      "How a subject's profile meets a situation told in free text, read offline (scopes situational:read and situational:write).",
  },
];

declare module 'fastify' {
  interface FastifySchema {
    /** Set by the document's transform: the error codes the route declared. */
    'x-problems'?: readonly ProblemCode[];
    /** Set by the document's transform: the route takes a request without a body too. */
    'x-optional-body'?: boolean;
  }
}

/**
 * Per route: the error responses declared with `problems` leave the response map (the document refers to
 * shared ones instead), and a body schema that accepts null marks the body optional.
 */
const transform: SwaggerTransform = (input) => {
  const { schema } = input;
  if (!schema?.response || schema.hide) return jsonSchemaTransform(input);
  const response = schema.response as Record<string, unknown>;
  const declared =
    Object.values(response)
      .map(problemCodesOf)
      .find((codes) => codes !== undefined) ?? [];
  const own = Object.fromEntries(Object.entries(response).filter(([, value]) => problemCodesOf(value) === undefined));
  const optionalBody = schema.body instanceof z.ZodType && schema.body.safeParse(null).success;
  const result = jsonSchemaTransform({ ...input, schema: { ...schema, response: own } });
  return { ...result, schema: { ...result.schema, 'x-problems': declared, ...(optionalBody && { 'x-optional-body': true }) } };
};

const METHODS = ['get', 'post', 'patch', 'put', 'delete'] as const;

/** The whole document: shared error responses, headers and parameters, examples, webhooks, no unused components. */
const transformObject =
  (delivery: Config['webhooks']): SwaggerTransformObject =>
  (input) => {
    const doc = jsonSchemaTransformObject(input) as Json & {
      paths: Record<string, Record<string, Json>>;
      components: Record<string, Json>;
    };
    const responses: Json = {};
    for (const operations of Object.values(doc.paths)) {
      for (const method of METHODS) {
        const operation = operations[method];
        if (operation === undefined) continue;
        documentOperation(method, operation, responses, doc.components.schemas!);
      }
    }
    doc.components = {
      ...doc.components,
      schemas: { ...doc.components.schemas, ...problemSchemas },
      responses: Object.fromEntries(Object.entries(responses).sort(([a], [b]) => a.localeCompare(b))),
      headers,
      parameters: {
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description: 'Makes a retried write safe: the first answer is stored for 24 hours and replayed for the same key and request.',
          schema: { type: 'string', pattern: '^[\\x21-\\x7e]{1,255}$' },
          example: '5b1f4c7e-9d2a-4e8b-a0c3-6f1d2e3b4a59',
        },
        IfNoneMatch: {
          name: 'If-None-Match',
          in: 'header',
          required: false,
          description: 'The ETag of a copy the client holds: while the answer would be the same bytes, it is a 304 without a body.',
          schema: { type: 'string' },
          example: '"Wq3c0cMDbD0nqUQ5mG8m7B1y5rJ"',
        },
      },
    };
    doc.webhooks = webhooks(doc.components.schemas!, delivery);
    return withoutUnusedSchemas(doc);
  };

function documentOperation(method: string, operation: Json, responses: Json, schemas: Json): void {
  const declared = (operation['x-problems'] as ProblemCode[] | undefined) ?? [];
  delete operation['x-problems'];
  const body = operation.requestBody as { required: boolean; content: Record<string, Json> } | undefined;
  if (operation['x-optional-body'] === true && body) {
    body.required = false;
    for (const media of Object.values(body.content)) {
      const branches = (media.schema as { anyOf?: Json[] }).anyOf?.filter((branch) => branch.type !== 'null');
      if (branches?.length === 1) media.schema = branches[0];
    }
  }
  delete operation['x-optional-body'];
  for (const media of Object.values(body?.content ?? {})) media.example = exampleOf(media.schema as Json, schemas);

  const keyed = KEYED_METHODS.has(method);
  const documented = operation.responses as Record<string, Json>;
  // An operation that answers 304 sends its validator and caching with the body and with the 304.
  const conditional = '304' in documented;
  const headerParameters = [
    ...(keyed ? [{ $ref: '#/components/parameters/IdempotencyKey' }] : []),
    ...(conditional ? [{ $ref: '#/components/parameters/IfNoneMatch' }] : []),
  ];
  if (headerParameters.length > 0) operation.parameters = [...((operation.parameters as Json[] | undefined) ?? []), ...headerParameters];
  for (const [status, response] of Object.entries(documented)) {
    response.headers = {
      'request-id': { $ref: '#/components/headers/RequestId' },
      'RateLimit-Policy': { $ref: '#/components/headers/RateLimitPolicy' },
      RateLimit: { $ref: '#/components/headers/RateLimit' },
      ...(keyed && { 'idempotent-replayed': { $ref: '#/components/headers/IdempotentReplayed' } }),
      ...(conditional &&
        (status === '200' || status === '304') && {
          ETag: { $ref: '#/components/headers/ETag' },
          'Cache-Control': { $ref: '#/components/headers/CacheControl' },
        }),
    };
    for (const media of Object.values((response.content as Record<string, Json> | undefined) ?? {}))
      media.example = exampleOf(media.schema as Json, schemas);
  }

  const byStatus = new Map<number, ProblemCode[]>();
  for (const code of codesOf(method, declared)) {
    const { status } = problemCodes[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  for (const [status, codes] of [...byStatus].sort(([a], [b]) => a - b)) {
    const name = responseName(codes);
    responses[name] ??= problemResponse(status, codes);
    documented[String(status)] = { $ref: `#/components/responses/${name}` };
  }
}

/**
 * The zod provider emits every registered schema twice (an input and an output version): only those the
 * document refers to stay, and an input version whose output twin is unused takes the plain name.
 */
function withoutUnusedSchemas<T extends Json & { components: Record<string, Json> }>(doc: T): T {
  const schemas = doc.components.schemas!;
  const used = new Set<string>();
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null) {
      for (const [key, child] of Object.entries(value)) {
        const name = key === '$ref' && typeof child === 'string' ? /^#\/components\/schemas\/(.+)$/.exec(child)?.[1] : undefined;
        if (name !== undefined && !used.has(name)) {
          used.add(name);
          visit(schemas[name]);
        } else visit(child);
      }
    }
  };
  visit({ ...doc, components: { ...doc.components, schemas: {} } });
  const renamed = new Map<string, string>();
  for (const name of used) {
    const plain = name.replace(/Input$/, '');
    if (plain !== name && !used.has(plain)) renamed.set(name, plain);
  }
  const kept = Object.fromEntries([...used].sort().map((name) => [renamed.get(name) ?? name, schemas[name]]));
  const json = JSON.stringify({ ...doc, components: { ...doc.components, schemas: kept } }, (key, value: unknown) => {
    if (key !== '$ref' || typeof value !== 'string') return value;
    const name = value.replace('#/components/schemas/', '');
    return renamed.has(name) ? `#/components/schemas/${renamed.get(name)}` : value;
  });
  return JSON.parse(json) as T;
}

/** The OpenAPI 3.1 document, generated from the routes' zod schemas, and its docs UI. Both are public. */
export async function registerOpenApi(app: FastifyInstance, delivery: Config['webhooks'], publicUrl: string | undefined): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Nature Profile API',
        // One version for the service, its document, the CLI and the client (CHANGELOG.md).
        version: packageJson.version,
        description,
        contact: { name: 'Nature Profile API support' },
        license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      },
      tags,
      components: {
        securitySchemes: {
          apiKey: { type: 'http', scheme: 'bearer', description: 'An API key: test_sk_…, live_sk_…, test_pk_… or live_pk_…' },
          clientSecret: {
            type: 'apiKey',
            in: 'header',
            name: 'Nature-Client-Secret',
            description:
              "An assessment's client secret (asm_…_secret_…, from its start), sent with a publishable (pk) key of the same environment: it lets a browser read and answer that one assessment while it is open, and, when it was started with result_visible_to_subject, read its profile (by id, or as the subject's latest while it is this assessment's) and the profile's chart for 24 hours after completion. A wrong, another assessment's or a closed assessment's secret answers 401 unauthenticated.",
          },
        },
      },
      security: [{ apiKey: [] }],
    },
    transform,
    transformObject: transformObject(delivery),
  });
  // Its one server is where the reader reached it, so the API reference's "Try it out" calls this very server.
  const served = (document: Readonly<Json>, request: FastifyRequest): Json => {
    const { openapi, info, ...rest } = document;
    return { openapi, info, servers: [{ url: originOf(request, publicUrl) }], ...rest };
  };
  await app.register(swaggerUi, {
    routePrefix: '/v1/docs',
    staticCSP: true,
    transformStaticCSP: apiReferencePolicy,
    // A shallow copy with its own servers: the generated document is never changed.
    transformSpecification: served,
    transformSpecificationClone: false,
  });
  app.get('/v1/openapi.json', { schema: { hide: true } }, (request) => served(app.swagger() as Json, request));
}
