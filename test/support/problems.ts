import { expect } from 'vitest';

interface Answer {
  statusCode: number;
  headers: Record<string, unknown>;
  json(): any;
}

/** An RFC 9457 answer with the contract's fields, whose request_id is the request-id header, never sniffed. Returns the body. */
export function expectProblem(response: Answer, status: number, code: string) {
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
    type: `urn:nature:problem:${code}`,
    request_id: response.headers['request-id'],
    title: expect.any(String),
  });
  expect(body.detail).toEqual(expect.any(String));
  return body;
}
