/**
 * Which scoring version the API serves profiles in. A profile rebuild activates its version when every
 * completed assessment has a profile in it: one event, so the switch is atomic for every reader.
 */
export type ScoringVersionActivated = {
  type: 'ScoringVersionActivated';
  data: { scoring_version: string; activated_at: string };
};

export const SCORING_VERSIONS_STREAM = 'scoring_versions';

/** The version activated last, if any was. */
export function activeVersion(events: readonly { type: string; data: unknown }[]): string | undefined {
  const last = events.findLast((event) => event.type === 'ScoringVersionActivated');
  return (last?.data as ScoringVersionActivated['data'] | undefined)?.scoring_version;
}
