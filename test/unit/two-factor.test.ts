import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import {
  isRecoveryCodeShape,
  isTotpCode,
  matchingStep,
  newRecoveryCodes,
  newTotpSecret,
  RECOVERY_CODES,
  recoveryCodeHash,
  stepAt,
  totpUri,
} from '../../src/domain/two-factor.js';

/** RFC 6238's SHA-1 test secret ("12345678901234567890"), base32. */
const RFC_SECRET = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
const at = (seconds: number) => new Date(seconds * 1000);

/** The six-digit code of `secret` at `when`, as an authenticator app makes it (otpauth, independently of the service). */
const appCode = (secret: string, when: Date) =>
  TOTP.generate({ secret: Secret.fromBase32(secret), digits: 6, period: 30, timestamp: when.getTime() });

describe('TOTP codes (RFC 6238)', () => {
  it("answers RFC 6238's SHA-1 test vectors, six digits, with the step each code is of", () => {
    // Appendix B: 94287082 at 59 s, 07081804 at 1111111109 s, 14050471 at 1111111111 s; six digits are the last six.
    expect(matchingStep(RFC_SECRET, '287082', at(59))).toBe(1);
    expect(matchingStep(RFC_SECRET, '081804', at(1111111109))).toBe(37037036);
    expect(matchingStep(RFC_SECRET, '050471', at(1111111111))).toBe(37037037);
    expect(stepAt(at(1111111111))).toBe(37037037);
  });

  it('accepts the code of the step before and after (a drifting clock), not two steps away', () => {
    const secret = newTotpSecret();
    const now = at(1_800_000_015);
    const step = stepAt(now);
    for (const drift of [-1, 0, 1]) expect(matchingStep(secret, appCode(secret, at((step + drift) * 30)), now)).toBe(step + drift);
    for (const drift of [-2, 2]) expect(matchingStep(secret, appCode(secret, at((step + drift) * 30)), now)).toBeUndefined();
  });

  it('takes a code typed with spaces or a dash; refuses one of another length, letters, or another secret', () => {
    const secret = newTotpSecret();
    const now = at(1_800_000_000);
    const code = appCode(secret, now);
    expect(matchingStep(secret, ` ${code.slice(0, 3)} ${code.slice(3)} `, now)).toBe(stepAt(now));
    expect(matchingStep(secret, `${code.slice(0, 3)}-${code.slice(3)}`, now)).toBe(stepAt(now));
    expect(matchingStep(secret, code.slice(1), now)).toBeUndefined();
    expect(matchingStep(secret, `${code}0`, now)).toBeUndefined();
    expect(matchingStep(secret, 'abcdef', now)).toBeUndefined();
    expect(matchingStep(newTotpSecret(), code, now)).toBeUndefined();
    expect(isTotpCode('123 456')).toBe(true);
    expect(isTotpCode('ABCD-EFGH-JKMN-PQRS')).toBe(false);
  });

  it('makes a fresh 160-bit secret each time, and an otpauth address an authenticator app reads', () => {
    const secret = newTotpSecret();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(newTotpSecret()).not.toBe(secret);
    const uri = new URL(totpUri(secret, 'ana@example.com'));
    expect(uri.protocol).toBe('otpauth:');
    expect(uri.host).toBe('totp');
    expect(decodeURIComponent(uri.pathname)).toBe('/Nature Profile API:ana@example.com');
    expect(Object.fromEntries(uri.searchParams)).toMatchObject({
      secret,
      issuer: 'Nature Profile API',
      algorithm: 'SHA1',
      digits: '6',
      period: '30',
    });
  });
});

describe('recovery codes', () => {
  it('makes ten different codes of 16 characters (80 bits) in groups of four', () => {
    const codes = newRecoveryCodes();
    expect(codes).toHaveLength(RECOVERY_CODES);
    expect(new Set(codes).size).toBe(RECOVERY_CODES);
    for (const code of codes) {
      expect(code).toMatch(/^[0-9A-HJKMNP-TV-Z]{4}(-[0-9A-HJKMNP-TV-Z]{4}){3}$/);
      expect(isRecoveryCodeShape(code)).toBe(true);
    }
  });

  it('hashes a code as typed in any case, with or without dashes, O and I read as 0 and 1; bound to its user', () => {
    const hash = recoveryCodeHash('usr_a', '0123-4567-89AB-CDEF');
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(recoveryCodeHash('usr_a', 'o123 4567 89ab cdef')).toBe(hash);
    expect(recoveryCodeHash('usr_a', '0I23-4567-89AB-CDEF')).toBe(hash);
    expect(recoveryCodeHash('usr_b', '0123-4567-89AB-CDEF')).not.toBe(hash);
    expect(recoveryCodeHash('usr_a', '0123-4567-89AB-CDEE')).not.toBe(hash);
  });

  it('tells a recovery code from an authenticator code by its shape', () => {
    expect(isRecoveryCodeShape('123456')).toBe(false);
    expect(isRecoveryCodeShape('0123-4567-89AB-CDEU')).toBe(false);
    expect(isRecoveryCodeShape('0123-4567-89AB-CDE')).toBe(false);
  });
});
