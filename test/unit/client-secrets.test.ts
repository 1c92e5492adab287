import { describe, expect, it } from 'vitest';
import { derivedLinkToken } from '../../src/domain/assessment-link.js';
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

  it('come out as earlier versions drew them, so a retry after an upgrade answers what was minted before it', () => {
    // Drawn by the code as it stood before derivedRandomPart was shared (the log keeps only their hashes).
    expect(derivedClientSecret('asm_01ABC', secret, 'tag-1').raw).toBe('asm_01ABC_secret_h98AVviseolBoN1f4NC46EiY5REmNzMHdJcLfoXw');
    expect(derivedLinkToken('test', 'al_01ABC', secret, 'tag-1').raw).toBe('test_al_01ABC_XndqqfQitdf08JThVq670Cd4BnaAdBintN0qe4rM');
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
