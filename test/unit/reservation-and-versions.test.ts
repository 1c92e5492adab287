import { describe, it } from 'vitest';
import { reservationAggregate, scoringVersionsAggregate } from '../../src/commands/aggregates.js';
import { decideActivateScoringVersion, type ScoringVersionActivated } from '../../src/domain/scoring-versions.js';
import { decideClaimExternalId, decideReleaseExternalId, type ReservationEvent } from '../../src/domain/subject.js';
import { deciderSpecification } from '../support/decider-spec.js';

const now = '2026-11-28T12:00:00.000Z';

type ReservationCommand = { type: 'Claim'; subject_id: string } | { type: 'Release'; subject_id: string; now: string };

/** An external id's reservation stream: the rules that keep `external_subject_id` unique per environment. */
const reservation = deciderSpecification<string | undefined, ReservationEvent, ReservationCommand>({
  ...reservationAggregate,
  decide: (command, holder) =>
    command.type === 'Claim' ? decideClaimExternalId(holder, command) : decideReleaseExternalId(holder, command),
});

const claimed = (subject_id: string): ReservationEvent => ({ type: 'ExternalIdClaimed', data: { subject_id } });
const released = (subject_id: string): ReservationEvent => ({ type: 'ExternalIdReleased', data: { subject_id, released_at: now } });

describe('an external id reservation (§Subjects: external_subject_id is unique per environment)', () => {
  it('is claimed by the first subject that asks for a free id', () => {
    reservation
      .given([])
      .when({ type: 'Claim', subject_id: 'sub_1' })
      .then([claimed('sub_1')]);
  });

  it('is not claimed by another subject while one holds it', () => {
    reservation
      .given([claimed('sub_1')])
      .when({ type: 'Claim', subject_id: 'sub_2' })
      .thenNothingHappened();
  });

  it("is freed by its holder's erasure, and can then be claimed by a new subject", () => {
    reservation
      .given([claimed('sub_1')])
      .when({ type: 'Release', subject_id: 'sub_1', now })
      .then([released('sub_1')]);
    reservation
      .given([claimed('sub_1'), released('sub_1')])
      .when({ type: 'Claim', subject_id: 'sub_2' })
      .then([claimed('sub_2')]);
  });

  it('is left as it is by the erasure of a subject that no longer holds it (a retried erasure)', () => {
    reservation
      .given([claimed('sub_1'), released('sub_1'), claimed('sub_2')])
      .when({ type: 'Release', subject_id: 'sub_1', now })
      .thenNothingHappened();
    reservation.given([]).when({ type: 'Release', subject_id: 'sub_1', now }).thenNothingHappened();
  });
});

const activated = (scoring_version: string): ScoringVersionActivated => ({
  type: 'ScoringVersionActivated',
  data: { scoring_version, activated_at: now },
});

const versions = deciderSpecification<string | undefined, ScoringVersionActivated, { scoring_version: string; now: string }>({
  ...scoringVersionsAggregate,
  decide: (command, active) => decideActivateScoringVersion(active, command),
});

describe('the scoring version served (§Audit and rebuild: old profiles serve until the new ones are complete)', () => {
  it('switches to a rebuilt version in one event', () => {
    versions
      .given([])
      .when({ scoring_version: 'mn76-v2', now })
      .then([activated('mn76-v2')]);
    versions
      .given([activated('mn76-v2')])
      .when({ scoring_version: 'mn76-v1', now })
      .then([activated('mn76-v1')]);
  });

  it('activates nothing when the version is already the one served (a rebuild run again)', () => {
    versions
      .given([activated('mn76-v1'), activated('mn76-v2')])
      .when({ scoring_version: 'mn76-v2', now })
      .thenNothingHappened();
  });
});
