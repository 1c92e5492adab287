/**
 * Which scoring version the API serves profiles in. A profile rebuild activates its version when every
 * completed assessment has a profile in it: one event, so the switch is atomic for every reader.
 */
export type ScoringVersionActivated = {
  type: 'ScoringVersionActivated';
  data: { scoring_version: string; activated_at: string };
};

export const SCORING_VERSIONS_STREAM = 'scoring_versions';
