import { describe, expect, it } from 'vitest';
import { didYouMean } from '../../src/http/did-you-mean.js';

describe('did you mean', () => {
  const known = ['name', 'limit', 'language', 'to', 'from'];

  it.each([
    ['nmae', 'name'],
    ['nam', 'name'],
    ['namee', 'name'],
    ['NAME', 'name'],
    ['langauge', 'language'],
    ['lnaguage', 'language'],
    ['limmit', 'limit'],
    ['too', 'to'],
    ['fo', 'to'],
  ])('takes %s for %s', (typed, meant) => {
    expect(didYouMean(typed, known)).toBe(meant);
  });

  it.each(['id', 'lim', 'languages_list', 'everything'])('guesses nothing for %s: no name is close enough', (typed) => {
    expect(didYouMean(typed, known)).toBeUndefined();
  });

  it('takes the nearest name, and the first of two as near', () => {
    expect(didYouMean('limt', ['lint', 'limit', 'limits'])).toBe('lint');
    expect(didYouMean('limitz', ['limits', 'limit'])).toBe('limits');
    expect(didYouMean('anything', [])).toBeUndefined();
  });
});
