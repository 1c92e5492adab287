/**
 * Which scoring version the API serves profiles in. A profile rebuild activates its version when every
 * completed assessment has a profile in it: one event, so the switch is atomic for every reader.
 */
export type ScoringVersionActivated = {
  type: 'ScoringVersionActivated';
  data: { scoring_version: string; activated_at: string };
};

export const SCORING_VERSIONS_STREAM = 'scoring_versions';

/** Makes `scoring_version` the one served, unless it already is (`active`, the one activated last). */
export function decideActivateScoringVersion(
  active: string | undefined,
  command: { scoring_version: string; now: string },
): ScoringVersionActivated[] {
  if (active === command.scoring_version) return [];
  return [{ type: 'ScoringVersionActivated', data: { scoring_version: command.scoring_version, activated_at: command.now } }];
}
