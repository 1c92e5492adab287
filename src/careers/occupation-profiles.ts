import type { ConstructProfile } from './catalogue.js';
import type { ReleaseFiles } from './release-tables.js';

/**
 * STAND-IN for the MAPPING part's module (issue 43, helper 1), kept only until it lands: same signature, every
 * occupation unprofiled. The lead keeps helper 1's file at merge.
 */
export function deriveProfiles(
  _files: ReleaseFiles,
  codes: readonly string[],
): { profiles: Map<string, ConstructProfile>; unprofiled: { code: string; reason: string }[] } {
  return { profiles: new Map(), unprofiled: codes.map((code) => ({ code, reason: 'profiles not derived yet' })) };
}
