import { describe, expect, it } from 'vitest';
import { clientSecretMatches, derivedClientSecret, mintClientSecret } from '../../src/domain/client-secrets.js';

const secret = Buffer.alloc(32, 7);

describe('client secrets of assessments started with an Idempotency-Key', () => {
  it('have the form of minted ones, match their hash, and come out the same for the same key tag', () => {
    const derived = derivedClientSecret('asm_01ABC', secret, 'tag-1');
    expect(derived.raw).toMatch(/^asm_01ABC_secret_[0-9A-Za-z]{40}$/);
    expect(mintClientSecret('asm_01ABC').raw).toHaveLength(derived.raw.length);
    expect(clientSecretMatches(derived.raw, 'asm_01ABC', derived.hash)).toBe(true);
    expect(derivedClientSecret('asm_01ABC', secret, 'tag-1')).toEqual(derived);
  });

  it('differ with the tag, the assessment and the environment secret', () => {
    const raw = derivedClientSecret('asm_01ABC', secret, 'tag-1').raw;
    const others = [
      derivedClientSecret('asm_01ABC', secret, 'tag-2').raw,
      derivedClientSecret('asm_01ABD', secret, 'tag-1').raw.replace('asm_01ABD', 'asm_01ABC'),
      derivedClientSecret('asm_01ABC', Buffer.alloc(32, 8), 'tag-1').raw,
    ];
    for (const other of others) expect(other).not.toBe(raw);
  });
});
