import { describe, expect, it } from 'vitest';
import { hashKey, keyHint, mintKey, mintProblem, parseRawKey } from '../../src/domain/api-keys.js';

describe('API keys', () => {
  it.each([
    ['test', 'pk'],
    ['test', 'sk'],
    ['live', 'pk'],
    ['live', 'sk'],
  ] as const)('mints a %s %s key: prefix, 40 base62 characters, stored only as its hash', (environment, type) => {
    const { raw, record } = mintKey({ name: 'n', environment, type, scopes: ['nature:write', 'nature:read', 'nature:read'] }, new Date(0));
    expect(raw).toMatch(new RegExp(`^${environment}_${type}_[0-9A-Za-z]{40}$`));
    expect(parseRawKey(raw)).toEqual({ environment, type });
    expect(record).toMatchObject({ id: expect.stringMatching(/^key_/), environment, type, hash: hashKey(raw), last4: raw.slice(-4) });
    expect(record.scopes).toEqual(['nature:read', 'nature:write']);
    expect(JSON.stringify(record)).not.toContain(raw);
    expect(keyHint(record, record.last4)).toBe(`${environment}_${type}_…${raw.slice(-4)}`);
  });

  it('mints a different key every time', () => {
    const keys = new Set(
      Array.from({ length: 1000 }, () => mintKey({ name: 'n', environment: 'test', type: 'sk', scopes: ['nature:read'] }, new Date()).raw),
    );
    expect(keys.size).toBe(1000);
  });

  it.each([
    '',
    'test_sk_',
    `test_sk_${'a'.repeat(31)}`,
    `test_xx_${'a'.repeat(40)}`,
    `prod_sk_${'a'.repeat(40)}`,
    `test_sk_${'a'.repeat(39)}!`,
    `TEST_SK_${'a'.repeat(40)}`,
  ])('refuses the malformed key %j', (raw) => {
    expect(parseRawKey(raw)).toBeUndefined();
  });

  it('mints the situational scopes for sk keys only', () => {
    expect(mintProblem({ name: 'n', environment: 'live', type: 'sk', scopes: ['situational:read', 'situational:write'] })).toBeUndefined();
    for (const scope of ['situational:read', 'situational:write'] as const) {
      expect(mintProblem({ name: 'n', environment: 'test', type: 'pk', scopes: ['nature:read', scope] })).toMatch(/pk .*situational/);
    }
  });

  it('mints careers:read for sk keys only', () => {
    expect(mintProblem({ name: 'n', environment: 'live', type: 'sk', scopes: ['careers:read', 'nature:read'] })).toBeUndefined();
    expect(mintProblem({ name: 'n', environment: 'test', type: 'pk', scopes: ['careers:read'] })).toMatch(/pk .*careers:read/);
  });
});
