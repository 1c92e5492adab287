import { expect } from 'vitest';

/** A problem's `type`: its code's entry in the served error catalogue, under the origin the request was sent to. */
export const problemTypeOf = (code: string, origin = 'http://localhost') => `${origin}/docs/errors#${code}`;

interface Answer {
  statusCode: number;
  headers: Record<string, unknown>;
  json(): any;
}

/**
 * An RFC 9457 answer with the contract's fields, whose request_id is the request-id header, never sniffed. Returns
 * the body. `origin`: the one the request was sent to (app.inject's Host is localhost).
 */
export function expectProblem(response: Answer, status: number, code: string, origin?: string) {
  expect({
    status: response.statusCode,
    type: response.headers['content-type'],
    nosniff: response.headers['x-content-type-options'],
  }).toEqual({
    status,
    type: expect.stringMatching(/^application\/problem\+json/),
    nosniff: 'nosniff',
  });
  const body = response.json();
  expect(body).toMatchObject({
    status,
    code,
    type: problemTypeOf(code, origin),
    request_id: response.headers['request-id'],
    title: expect.any(String),
  });
  expect(body.detail).toEqual(expect.any(String));
  return body;
}
