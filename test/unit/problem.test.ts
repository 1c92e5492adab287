import { describe, expect, it } from 'vitest';
import { problemBody } from '../../src/http/problem.js';

describe('problem body', () => {
  it('keeps the standard members whatever the extra members are called', () => {
    const body = problemBody('assessment_not_open', 'closed', 'req_1', 'https://nature.example.com', {
      status: 'abandoned',
      code: 'x',
      type: 'x',
      assessment_status: 'abandoned',
    });
    expect(body).toMatchObject({
      type: 'https://nature.example.com/docs/errors#assessment_not_open',
      status: 409,
      code: 'assessment_not_open',
      request_id: 'req_1',
      assessment_status: 'abandoned',
    });
  });
});
