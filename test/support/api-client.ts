import { expect } from 'vitest';
import { eventually } from './eventually.js';
import { knownResponses } from './known-answers.js';
import { auth, type TestApp, validSubject } from './test-app.js';

// Response bodies are checked field by field; their static type adds nothing.
export type Body = Record<string, any>;

/** The API as a caller with one key drives it, in-process. */
export function client(t: TestApp, key: string) {
  const call = async (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) => {
    const response = await t.app.inject({ method, url, headers: auth(key), ...(payload !== undefined && { payload: payload as object }) });
    return { status: response.statusCode, body: response.json() as Body };
  };
  return {
    call,
    /** A subject through a whole assessment; resolves with the ids once the 76th answer is in. */
    async completeAssessment(subject: Body = validSubject(), responses = knownResponses) {
      const created = (await call('POST', '/v1/nature/subjects', subject)).body;
      const assessment = (await call('POST', `/v1/nature/subjects/${created.id}/assessments`)).body;
      await call('PATCH', `/v1/nature/subjects/${created.id}/assessments/${assessment.id}`, { responses });
      return { subjectId: created.id as string, assessmentId: assessment.id as string };
    },
    /** The subject's latest profile, once there is one. */
    profileOf: (subjectId: string) =>
      eventually<Body>(async () => {
        const response = await call('GET', `/v1/nature/subjects/${subjectId}/profile`);
        return response.status === 200 ? response.body : undefined;
      }),
    async register(url: string, enabled_events?: string[]) {
      const created = await call('POST', '/v1/nature/webhook_endpoints', {
        url,
        description: 'test receiver',
        ...(enabled_events && { enabled_events }),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return created.body;
    },
    /** Deletes every webhook endpoint of the key's environment, so the next test starts without any. */
    async deleteEndpoints() {
      for (const endpoint of (await call('GET', '/v1/nature/webhook_endpoints?limit=100')).body.data as Body[]) {
        await call('DELETE', `/v1/nature/webhook_endpoints/${endpoint.id}`);
      }
    },
    deliveries: (endpointId: string) =>
      call('GET', `/v1/nature/webhook_endpoints/${endpointId}/deliveries?limit=100`).then((r) => r.body.data as Body[]),
    /** The endpoint's attempts (newest first) once `ready` says they are all there. */
    attemptsWhen: (endpointId: string, ready: (attempts: Body[]) => boolean) =>
      eventually(async () => {
        const list = (await call('GET', `/v1/nature/webhook_endpoints/${endpointId}/deliveries?limit=100`)).body.data as Body[];
        return ready(list) ? list : undefined;
      }),
  };
}
