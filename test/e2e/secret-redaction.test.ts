import { describe, expect, it } from 'vitest';
import { expectProblem } from '../support/problems.js';
import { auth, type TestApp, useTestApp, validSubject } from '../support/test-app.js';

describe('credentials pasted where they do not belong', () => {
  let t: TestApp;
  let key: string;
  useTestApp((app, sk) => {
    t = app;
    key = sk;
  });

  const pasted = {
    apiKey: `live_sk_${'Q7'.repeat(20)}`,
    clientSecret: `asm_01M80DKJP039G80E35HK2HMNG3_secret_${'x9'.repeat(20)}`,
    webhookSecret: `whsec_${'Zk'.repeat(21)}a=`,
  };
  const secretParts = Object.values(pasted).map((secret) => secret.slice(-20));

  it('are never echoed in an error, whether in the path, the query or the body, nor logged', async () => {
    const answers = [
      [await t.app.inject({ url: `/v1/nature/subjects/${pasted.apiKey}`, headers: auth(key) }), 404, 'not_found'],
      [await t.app.inject({ url: `/v1/nature/profiles/${pasted.clientSecret}`, headers: auth(key) }), 404, 'profile_not_found'],
      [
        await t.app.inject({ url: `/v1/nature/subjects?starting_after=${pasted.webhookSecret}`, headers: auth(key) }),
        400,
        'invalid_cursor',
      ],
      [
        await t.app.inject({
          method: 'POST',
          url: '/v1/nature/subjects',
          headers: auth(key),
          payload: { ...validSubject(), [pasted.apiKey]: pasted.webhookSecret },
        }),
        422,
        'validation_failed',
      ],
      [await t.app.inject({ url: '/v1/nature/subjects', headers: { authorization: `Token ${pasted.apiKey}` } }), 401, 'unauthenticated'],
    ] as const;
    for (const [answer, status, code] of answers) {
      const problem = expectProblem(answer, status, code);
      for (const part of secretParts) expect(JSON.stringify(problem)).not.toContain(part);
    }
    // The kind of credential stays readable, so a caller sees what they sent where.
    expect(expectProblem(answers[0][0], 404, 'not_found').detail).toContain('live_sk_[redacted]');
    const logs = t.logs.join('');
    expect(logs).toContain('live_sk_[redacted]');
    for (const part of secretParts) expect(logs).not.toContain(part);
  });
});
