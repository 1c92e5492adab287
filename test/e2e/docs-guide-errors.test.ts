import { describe, expect, it } from 'vitest';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { readerMachine, servedGuide } from '../support/docs-blocks.js';

const REQUEST_ID = /^req_[0-9A-HJKMNP-TV-Z]{26}$/;

describe('/docs/errors, its example produced by a real request, twice', () => {
  const machine = readerMachine();

  it('is the 422 a subject with a malformed consent.ui_hash gets, under the address the request was sent to', async () => {
    const server = await machine.start();
    const blocks = await servedGuide(server, 'errors');
    expect(blocks.map((block) => block.lang)).toEqual(['json']);
    const example = JSON.parse(blocks[0]!.text) as { request_id: string };
    // The page names this server, as its problems' `type` does.
    expect(example).toMatchObject({ type: `${server.url}/docs/errors#validation_failed` });
    expect(example.request_id).toMatch(REQUEST_ID);
    const key = JSON.parse((await runCliInProcess(keyCreateArgs(), machine.dataEnv())).stdout).key as string;

    for (const run of [1, 2]) {
      const answer = await fetch(`${server.url}/v1/nature/subjects`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          external_subject_id: 'emp-1001',
          consent: { text_version: 'consent-v3', granted_at: '2026-11-01T09:30:00Z', ui_hash: 'sha256:9F86D081' },
        }),
      });
      expect(answer.status, `run ${run}`).toBe(422);
      expect(answer.headers.get('content-type')).toMatch(/^application\/problem\+json\b/);
      const problem = (await answer.json()) as { request_id: string };
      // Every member as shown but the request's own id, which the header repeats.
      expect(problem).toEqual({ ...example, request_id: problem.request_id });
      expect(problem.request_id).toMatch(REQUEST_ID);
      expect(problem.request_id).not.toBe(example.request_id);
      expect(answer.headers.get('request-id')).toBe(problem.request_id);
    }
  }, 180_000);
});
