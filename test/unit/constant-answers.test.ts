import { describe, expect, it } from 'vitest';
import { constantAnswer, servingConstantsOnce } from '../../src/http/constant-answers.js';

/** A stand-in for the schema's serializer that counts its calls. */
function counting() {
  const calls: unknown[] = [];
  const compile = servingConstantsOnce(() => (data: unknown) => {
    calls.push(data);
    return JSON.stringify(data);
  });
  return { calls, serialize: compile({ schema: {}, method: 'GET', url: '/', httpStatus: '200' }) };
}

describe('constant answers', () => {
  it('serialises a constant answer once, to the bytes of what the serializer made', () => {
    const { calls, serialize } = counting();
    const answer = constantAnswer({ object: 'list', data: [{ text: 'Très' }] });
    const first = serialize(answer) as unknown as Buffer;
    expect(Buffer.isBuffer(first)).toBe(true);
    expect(first.toString('utf8')).toBe('{"object":"list","data":[{"text":"Très"}]}');
    expect(serialize(answer)).toBe(first);
    expect(calls).toHaveLength(1);
  });

  it('serialises any other answer on every send, as the serializer does', () => {
    const { calls, serialize } = counting();
    const answer = { object: 'list' };
    expect(serialize(answer)).toBe('{"object":"list"}');
    expect(serialize(answer)).toBe('{"object":"list"}');
    expect(calls).toHaveLength(2);
  });

  it('freezes a constant answer at every depth, so its bytes cannot go stale', () => {
    const answer = constantAnswer({ data: [{ text: 'a' }] });
    expect(() => {
      answer.data[0]!.text = 'b';
    }).toThrow(TypeError);
    expect(Object.isFrozen(answer.data)).toBe(true);
  });
});
