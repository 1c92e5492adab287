import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestApp, type TestApp } from '../support/test-app.js';

describe('OpenAPI document and docs', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('carries one version with the service, the client and the changelog', async () => {
    const doc = (await t.app.inject({ url: '/v1/openapi.json' })).json();
    const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
    const service = JSON.parse(read('package.json')).version;
    expect(doc.info.version).toBe(service);
    expect(JSON.parse(read('packages/client/package.json')).version).toBe(service);
    // The changelog's newest entry is this version.
    expect(read('CHANGELOG.md').match(/^## (\S+)/m)?.[1]).toBe(service);
  });

  it('serves an OpenAPI 3.1 document generated from the route schemas, without a key', async () => {
    const response = await t.app.inject({ url: '/v1/openapi.json' });
    expect(response.statusCode).toBe(200);
    const doc = response.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/v1/nature/subjects',
        '/v1/nature/subjects/{id}',
        '/v1/nature/items',
        '/v1/nature/subjects/{id}/assessments',
        '/v1/nature/subjects/{id}/assessments/{assessment_id}',
        '/v1/nature/subjects/{id}/profile',
        '/v1/nature/profiles/{id}',
        '/v1/nature/webhook_endpoints',
        '/v1/nature/webhook_endpoints/{id}',
        '/v1/nature/webhook_endpoints/{id}/deliveries',
        '/v1/nature/events',
        '/v1/nature/events/{id}',
        '/v1/nature/events/{id}/redeliver',
      ]),
    );
    const patch = doc.paths['/v1/nature/subjects/{id}/assessments/{assessment_id}'].patch;
    const schemaOf = (media: { schema: { $ref: string } }) =>
      doc.components.schemas[media.schema.$ref.replace('#/components/schemas/', '')];
    const entry = schemaOf(patch.requestBody.content['application/json']).properties.responses;
    expect(entry).toMatchObject({ type: 'array', minItems: 1, maxItems: 76 });
    expect(entry.items.properties.value).toMatchObject({ type: 'integer', minimum: 1, maximum: 5 });
    expect(Object.keys(patch.responses)).toEqual(expect.arrayContaining(['200', '404', '409', '422']));
    expect(doc.paths['/v1/openapi.json']).toBeUndefined();
    const create = doc.paths['/v1/nature/subjects'].post;
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '401', '403', '409', '422']));
    const body = schemaOf(create.requestBody.content['application/json']);
    expect(body.required).toEqual(expect.arrayContaining(['external_subject_id', 'consent']));
    expect(body.additionalProperties).toBe(false);
    expect(body.properties.consent.properties.ui_hash.pattern).toBe('^sha256:[0-9a-f]{64}$');
    expect(body.properties.metadata).toMatchObject({
      type: 'object',
      maxProperties: 50,
      additionalProperties: { type: 'string', maxLength: 500 },
    });
    const list = doc.paths['/v1/nature/subjects'].get;
    expect(list.parameters.map((p: { name: string }) => p.name)).toEqual(
      expect.arrayContaining(['limit', 'starting_after', 'ending_before', 'external_subject_id']),
    );
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('describes every response in words of its own, successes included, never as "Default Response"', async () => {
    const doc = (await t.app.inject({ url: '/v1/openapi.json' })).json();
    const described: Record<string, string> = {};
    const operations = [
      ...Object.entries(doc.paths).map(([path, operations]) => [path, operations] as const),
      ...Object.entries(doc.webhooks).map(([name, operations]) => [`webhook ${name}`, operations] as const),
    ];
    for (const [where, byMethod] of operations) {
      for (const [method, operation] of Object.entries(byMethod as Record<string, { responses: Record<string, any> }>)) {
        for (const [status, response] of Object.entries(operation.responses)) {
          const shared = response.$ref?.replace('#/components/responses/', '');
          described[`${method.toUpperCase()} ${where} ${status}`] = (shared ? doc.components.responses[shared] : response).description;
        }
      }
    }
    const successes = Object.keys(described).filter((response) => / 2\d\d$/.test(response));
    expect(successes.length).toBeGreaterThan(20);
    const undescribed = Object.entries(described).filter(([, description]) => !description?.trim() || description === 'Default Response');
    expect(undescribed).toEqual([]);
    expect(described['POST /v1/nature/subjects 201']).toBe('The subject, as stored.');
    expect(described['GET /v1/nature/subjects 200']).toBe('A page of subjects, newest first.');
  });

  it('serves the docs UI without a key', async () => {
    const response = await t.app.inject({ url: '/v1/docs/' });
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/text\/html/);
  });
});
