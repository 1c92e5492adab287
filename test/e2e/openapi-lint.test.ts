import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Document, type RulesetDefinition, Spectral } from '@stoplight/spectral-core';
import { Json } from '@stoplight/spectral-parsers';
import { oas } from '@stoplight/spectral-rulesets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestApp, type TestApp } from '../support/test-app.js';

/** The served document, linted as an integrator's CI would: every finding, warnings included, fails. */
describe('the OpenAPI document lints clean', () => {
  let t: TestApp;
  let source: string;
  beforeAll(async () => {
    t = await openTestApp();
    // As fetched from a deployment: its one server is where it was fetched from, and Redocly flags a localhost one.
    source = (await t.app.inject({ url: '/v1/openapi.json', headers: { host: 'nature.acme.test' } })).body;
  });
  afterAll(async () => {
    await t.close();
  });

  it("with Redocly's recommended rules", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    expect(problems.map(({ ruleId, message, location }) => `${ruleId}: ${message} at ${location[0]?.pointer ?? ''}`)).toEqual([]);
  });

  it("with Spectral's oas ruleset", async () => {
    const spectral = new Spectral();
    spectral.setRuleset({ extends: [[oas as RulesetDefinition, 'recommended']] });
    const findings = await spectral.run(new Document(source, Json, 'openapi.json'));
    expect(findings.map(({ code, message, path }) => `${String(code)}: ${message} at ${path.join('.')}`)).toEqual([]);
  });
});
