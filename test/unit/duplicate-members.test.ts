import { describe, expect, it } from 'vitest';
import { duplicateMember } from '../../src/http/duplicate-members.js';

describe('duplicateMember', () => {
  it.each([
    ['{"a":1,"b":2}', undefined],
    ['{"a":{"a":1},"b":[{"a":1},{"a":2}]}', undefined],
    ['{"a":1,"a":2}', '/a'],
    ['{"a":{"x":"\\"}","x":1}}', '/a/x'],
    ['[0,[1,{"k":1,"k":2}]]', '/1/1/k'],
    ['{"a/b":1,"a\\u002fb":2}', '/a~1b'],
    ['{"s":"{\\"a\\":1,\\"a\\":2}"}', undefined],
    ['"just a string"', undefined],
  ])('finds in %s: %s', (text, where) => {
    JSON.parse(text);
    expect(duplicateMember(text)).toBe(where);
  });

  it('walks any depth JSON.parse accepts without overflowing the stack', () => {
    const depth = 200_000;
    const text = `${'['.repeat(depth)}{"k":1,"k":2}${']'.repeat(depth)}`;
    expect(duplicateMember(text)).toBe(`${'/0'.repeat(depth)}/k`);
  });
});
