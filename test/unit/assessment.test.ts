import { describe, expect, it } from 'vitest';
import { assessmentAggregate } from '../../src/commands/aggregates.js';
import {
  type AssessmentEvent,
  type AssessmentPointer,
  type AssessmentState,
  assessmentPointer,
  decideAbandonAssessment,
  decideCloseForErasure,
  decideExpireAssessment,
  decideRescore,
  decideScoreAssessment,
  decideStartAssessment,
  decideSubmitResponses,
  type ItemResponse,
  type ProfileScores,
  type Rescore,
  type ScoringCommand,
  statusAt,
} from '../../src/domain/assessment.js';
import { DomainError } from '../../src/domain/errors.js';
import type { ItemTiming } from '../../src/scoring/quality.js';
import { scorers } from '../../src/scoring/scorers.js';
import { deciderSpecification, refusal } from '../support/decider-spec.js';
import { knownResponses } from '../support/known-answers.js';

/** The hash of the client secret the start command mints; the domain only carries it. */
const SECRET_HASH = 'c'.repeat(64);

const scoreV1 = scorers['mn76-v1']!;

const now = new Date('2026-11-21T10:00:00.000Z');
const later = (ms: number) => new Date(now.getTime() + ms);
const DAY = 24 * 60 * 60 * 1000;

/** The assessment's commands, each decided by its own function of the domain. */
type AssessmentCommand =
  | { type: 'StartAssessment'; pointer: AssessmentPointer }
  | ({ type: 'SubmitResponses' } & Parameters<typeof decideSubmitResponses>[1])
  | ({ type: 'AbandonAssessment' } & Parameters<typeof decideAbandonAssessment>[1])
  | ({ type: 'CloseForErasure' } & Parameters<typeof decideCloseForErasure>[1])
  | ({ type: 'ExpireAssessment' } & Parameters<typeof decideExpireAssessment>[1])
  | { type: 'ScoreAssessment'; scoring: () => ScoringCommand }
  | ({ type: 'Rescore' } & Rescore);

const assessment = deciderSpecification<AssessmentState, AssessmentEvent, AssessmentCommand>({
  ...assessmentAggregate,
  decide: (command, state) => {
    switch (command.type) {
      case 'StartAssessment':
        return decideStartAssessment(command.pointer);
      case 'SubmitResponses':
        return decideSubmitResponses(state, command);
      case 'AbandonAssessment':
        return decideAbandonAssessment(state, command);
      case 'CloseForErasure':
        return decideCloseForErasure(state, command);
      case 'ExpireAssessment':
        return decideExpireAssessment(state, command);
      case 'ScoreAssessment':
        return decideScoreAssessment(state, command.scoring);
      case 'Rescore':
        return decideRescore(state, command);
    }
  },
});

/** How many profile and event ids scoring minted: ids are minted only when an assessment is scored. */
let minted = 0;
const scoring = () => ({ profile_id: `prf_${++minted}`, event_id: `evt_${minted}`, scorer: scoreV1, now });
const submitting = (responses: ItemResponse[], at = now): AssessmentCommand => ({
  type: 'SubmitResponses',
  subject_id: 'sub_1',
  responses,
  now: at,
  scoring,
});
const abandoning: AssessmentCommand = { type: 'AbandonAssessment', subject_id: 'sub_1', event_id: 'evt_9', now };

const startedEvent: Extract<AssessmentEvent, { type: 'AssessmentStarted' }> = {
  type: 'AssessmentStarted',
  data: {
    assessment_id: 'asm_1',
    subject_id: 'sub_1',
    language: 'fr',
    requested_language: 'fr',
    item_set_version: 'mn76-items-v1',
    created_at: now.toISOString(),
    expires_at: later(7 * DAY).toISOString(),
    client_secret_hash: SECRET_HASH,
    event_id: 'evt_1',
  },
};
const started: AssessmentEvent[] = [startedEvent];
const submitted = (responses: ItemResponse[], received: number, at = now): AssessmentEvent => ({
  type: 'ResponsesSubmitted',
  data: {
    assessment_id: 'asm_1',
    subject_id: 'sub_1',
    submitted_at: at.toISOString(),
    responses_received: received,
    pii: { responses },
  },
});
/** The profile v1 makes of these responses, without its version: what the log keeps (the narratives are derived where it is shown). */
function profileOf(responses: ItemResponse[]): ProfileScores {
  const answers = Object.fromEntries(responses.map(({ item_id, value }) => [item_id, value]));
  const timing: Record<string, ItemTiming> = Object.fromEntries(
    responses.flatMap(({ item_id, answered_at, response_time_ms }) =>
      answered_at === undefined ? [] : [[item_id, { answered_at, ...(response_time_ms !== undefined && { response_time_ms }) }]],
    ),
  );
  const { scoring_version: _version, ...scores } = scoreV1(answers, timing);
  return scores;
}
const completion = (profile: ProfileScores, at = now): AssessmentEvent => ({
  type: 'ScoringCompleted',
  data: {
    assessment_id: 'asm_1',
    subject_id: 'sub_1',
    profile_id: 'prf_1',
    event_id: 'evt_1',
    scoring_version: 'mn76-v1',
    language: 'fr',
    completed_at: at.toISOString(),
    pii: { profile },
  },
});
/** All 76 answered and scored in one batch. */
const completed = [...started, submitted(knownResponses, 76), completion(profileOf(knownResponses))];
/** All 76 answers as a batch recorded before batches carried their count and their scoring: the assessment waits in `scoring`. */
const answeredBefore: AssessmentEvent[] = [
  ...started,
  {
    type: 'ResponsesSubmitted',
    data: { assessment_id: 'asm_1', subject_id: 'sub_1', submitted_at: now.toISOString(), pii: { responses: knownResponses } },
  },
];
const notOpen = (status: string) => refusal('assessment_not_open', { assessment_status: status });

describe('assessment decider', () => {
  it('starts in created, in the language asked for, expiring 7 days later (§Assessments: states; expired)', () => {
    const pointer = assessmentPointer({
      assessment_id: 'asm_1',
      subject_id: 'sub_1',
      requested_language: 'fr',
      client_secret_hash: SECRET_HASH,
      event_id: 'evt_1',
      now,
    });
    expect(assessment.given([]).when({ type: 'StartAssessment', pointer }).then(started)).toMatchObject({
      id: 'asm_1',
      subject_id: 'sub_1',
      status: 'created',
      language: 'fr',
      requested_language: 'fr',
      item_set_version: 'mn76-items-v1',
      answers: {},
      expires_at: later(7 * DAY).toISOString(),
    });
  });

  it('keeps English an assessment started before French existed, whatever it asked for (§Assessments: requested_language)', () => {
    expect(assessment.given([{ ...startedEvent, data: { ...startedEvent.data, language: 'en' } }]).state).toMatchObject({
      language: 'en',
      requested_language: 'fr',
    });
  });

  it('records a batch and moves to in_progress (§Assessments: created → in_progress on the first response)', () => {
    const state = assessment
      .given(started)
      .when(submitting([{ item_id: 'mn_001', value: 4 }]))
      .then([submitted([{ item_id: 'mn_001', value: 4 }], 1)]);
    expect(state).toMatchObject({ status: 'in_progress', answers: { mn_001: 4 } });
  });

  const twoAnswered = [
    ...started,
    submitted(
      [
        { item_id: 'mn_001', value: 4 },
        { item_id: 'mn_002', value: 2 },
      ],
      2,
    ),
  ];

  it('decides nothing for a retried batch (§Assessments: the same value again is a safe retry)', () => {
    assessment
      .given(twoAnswered)
      .when(submitting([{ item_id: 'mn_001', value: 4 }]))
      .thenNothingHappened();
  });

  it('records only what changed in a mixed batch, the newer answer replacing the older (§Assessments: another value replaces)', () => {
    const state = assessment
      .given(twoAnswered)
      .when(
        submitting([
          { item_id: 'mn_001', value: 4 },
          { item_id: 'mn_002', value: 5 },
        ]),
      )
      .then([submitted([{ item_id: 'mn_002', value: 5 }], 2)]);
    expect(state).toMatchObject({ answers: { mn_001: 4, mn_002: 5 } });
  });

  it('counts the distinct items answered after each batch, a changed answer counting once (§Assessments: responses_received)', () => {
    const changedFirst = { item_id: 'mn_001', value: (knownResponses[0]!.value % 5) + 1 };
    assessment
      .given([...started, submitted(knownResponses.slice(0, 19), 19)])
      .when(submitting([...knownResponses.slice(10, 30), changedFirst]))
      .then([submitted([...knownResponses.slice(19, 30), changedFirst], 30)]);
  });

  it('scores the batch that completes the 76 answers in the same decision, minting ids for it alone (§Assessments: scoring starts by itself, once)', () => {
    minted = 0;
    const first = [...started, submitted(knownResponses.slice(0, 75), 75)];
    assessment
      .given(started)
      .when(submitting(knownResponses.slice(0, 75)))
      .then(first.slice(1));
    expect(minted).toBe(0);
    // The log keeps the scores only: the narratives are derived from them where the profile is shown.
    const state = assessment
      .given(first)
      .when(submitting(knownResponses.slice(75)))
      .then([submitted(knownResponses.slice(75), 76), completion(profileOf(knownResponses))]);
    expect(minted).toBe(1);
    expect(state).toMatchObject({ status: 'completed', profile_id: 'prf_1', completed_at: now.toISOString() });
  });

  it('refuses responses once completed, and a second completing batch (the one that lost the race) too (§Assessments: only created and in_progress accept responses)', () => {
    for (const batch of [[{ item_id: 'mn_001', value: 1 }], knownResponses]) {
      assessment.given(completed).when(submitting(batch)).thenThrows(DomainError, notOpen('completed'));
    }
  });

  it('leaves an assessment completed by a batch without a count in scoring, refusing responses (§Assessments: only created and in_progress accept responses)', () => {
    const given = assessment.given(answeredBefore);
    expect(given.state).toMatchObject({ status: 'scoring' });
    given.when(submitting([{ item_id: 'mn_001', value: 1 }])).thenThrows(DomainError, notOpen('scoring'));
  });

  it('scores an assessment waiting in scoring once: ScoringCompleted in scoring, nothing after (§Assessments: scoring starts by itself, once)', () => {
    const fixedIds = () => ({ profile_id: 'prf_1', event_id: 'evt_1', scorer: scoreV1, now });
    const state = assessment
      .given(answeredBefore)
      .when({ type: 'ScoreAssessment', scoring: fixedIds })
      .then([completion(profileOf(knownResponses))]);
    expect(state).toMatchObject({ status: 'completed', profile_id: 'prf_1', completed_at: now.toISOString() });
    minted = 0;
    assessment
      .given([...answeredBefore, completion(profileOf(knownResponses))])
      .when({ type: 'ScoreAssessment', scoring })
      .thenNothingHappened();
    assessment.given(started).when({ type: 'ScoreAssessment', scoring }).thenNothingHappened();
    expect(minted).toBe(0);
  });

  it('abandons an open assessment (§Assessments: abandoned, DELETE on an open assessment)', () => {
    const state = assessment
      .given(started)
      .when(abandoning)
      .then([
        {
          type: 'AssessmentAbandoned',
          data: { assessment_id: 'asm_1', subject_id: 'sub_1', abandoned_at: now.toISOString(), event_id: 'evt_9' },
        },
      ]);
    expect(state).toMatchObject({ status: 'abandoned' });
  });

  it('records an open assessment expired once its expiry has passed, and nothing before or once closed (nature.assessment.expired)', () => {
    const expiresAt = later(7 * DAY);
    const expiring = { type: 'ExpireAssessment' as const, event_id: 'evt_7', now: expiresAt };
    const expiredEvent: AssessmentEvent = {
      type: 'AssessmentExpired',
      data: {
        assessment_id: 'asm_1',
        subject_id: 'sub_1',
        expires_at: expiresAt.toISOString(),
        expired_at: expiresAt.toISOString(),
        event_id: 'evt_7',
      },
    };
    assessment
      .given(started)
      .when({ ...expiring, now: later(7 * DAY - 1) })
      .thenNothingHappened();
    expect(assessment.given(started).when(expiring).then([expiredEvent])).toMatchObject({
      status: 'expired',
      updated_at: expiresAt.toISOString(),
    });
    const expired = [...started, expiredEvent];
    assessment.given(expired).when(expiring).thenNothingHappened();
    assessment.given(expired).when(abandoning).thenThrows(DomainError, notOpen('expired'));
    assessment
      .given(completed)
      .when({ ...expiring, now: later(8 * DAY) })
      .thenNothingHappened();
  });

  it('refuses responses and a second abandon once abandoned (§Assessments: only created and in_progress accept responses)', () => {
    const abandoned: AssessmentEvent[] = [
      ...started,
      { type: 'AssessmentAbandoned', data: { assessment_id: 'asm_1', abandoned_at: now.toISOString() } },
    ];
    assessment
      .given(abandoned)
      .when(submitting([{ item_id: 'mn_001', value: 1 }]))
      .thenThrows(DomainError, notOpen('abandoned'));
    assessment.given(abandoned).when(abandoning).thenThrows(DomainError, notOpen('abandoned'));
  });

  it('expires an open assessment 7 days after creation: expired refuses responses (§Assessments: expired)', () => {
    const justBefore = later(7 * DAY - 1);
    const expiry = later(7 * DAY);
    const given = assessment.given(started);
    expect(statusAt(given.state!, justBefore)).toBe('created');
    expect(statusAt(given.state!, expiry)).toBe('expired');
    given
      .when(submitting([{ item_id: 'mn_001', value: 3 }], justBefore))
      .then([submitted([{ item_id: 'mn_001', value: 3 }], 1, justBefore)]);
    given.when(submitting([{ item_id: 'mn_001', value: 3 }], expiry)).thenThrows(DomainError, notOpen('expired'));
  });

  it('never expires a completed assessment (§Assessments: expired, not completed 7 days after creation)', () => {
    expect(statusAt(assessment.given(completed).state!, later(30 * DAY))).toBe('completed');
  });

  const closedForErasure: AssessmentEvent = {
    type: 'AssessmentAbandoned',
    data: { assessment_id: 'asm_1', subject_id: 'sub_1', abandoned_at: now.toISOString(), reason: 'erasure', event_id: 'evt_8' },
  };

  it('closes an open assessment first when its subject is erased, and leaves a closed one as it is (§Subjects: DELETE is erasure)', () => {
    const state = assessment.given(started).when({ type: 'CloseForErasure', event_id: 'evt_8', now }).then([closedForErasure]);
    expect(state).toMatchObject({ status: 'abandoned', erased_at: now.toISOString() });
    assessment.given(completed).when({ type: 'CloseForErasure', event_id: 'evt_8', now }).thenNothingHappened();
    assessment.given([]).when({ type: 'CloseForErasure', event_id: 'evt_8', now }).thenNothingHappened();
  });

  it("answers subject_erased to a batch on an assessment its subject's erasure closed (§Subjects: afterwards 410 subject_erased)", () => {
    assessment
      .given([...started, closedForErasure])
      .when(submitting([{ item_id: 'mn_001', value: 1 }]))
      .thenThrows(DomainError, refusal('subject_erased', { subject_id: 'sub_1' }));
  });

  it('answers not_found for an assessment that does not exist or belongs to another subject', () => {
    assessment
      .given([])
      .when(submitting([{ item_id: 'mn_001', value: 1 }]))
      .thenThrows(DomainError, refusal('not_found'));
    assessment
      .given(started)
      .when({ type: 'SubmitResponses', subject_id: 'sub_2', responses: [{ item_id: 'mn_001', value: 1 }], now, scoring })
      .thenThrows(DomainError, refusal('not_found'));
  });
});

describe('timing and quality through the assessment', () => {
  const timed = knownResponses.map((response, index) => ({
    ...response,
    answered_at: new Date(now.getTime() + (index + 1) * 200).toISOString(),
    response_time_ms: 200,
  }));
  const completedFast = [...started, submitted(timed, 76, later(60_000)), completion(profileOf(timed), later(60_000))];
  const flagged = { reasons: ['too_fast_share', 'completion_seconds'] };

  it('scores with the timing sent: the completion carries the quality, sealed with the scores', () => {
    minted = 0;
    assessment
      .given(started)
      .when(submitting(timed, later(60_000)))
      .then([submitted(timed, 76, later(60_000)), completion(expect.objectContaining({ quality: expect.objectContaining(flagged) }), now)]);
  });

  it('recomputes the quality on a rebuild with the new version, the timing kept with the answers (§Audit and rebuild)', () => {
    assessment
      .given(completedFast)
      .when({
        type: 'Rescore',
        scoring_version: 'mn76-v2',
        scorerOf: (version) => scorers[version]!,
        active_version: undefined,
        notify: true,
        profile_id: 'prf_rebuilt',
        event_id: 'evt_rebuilt',
        now: later(DAY),
      })
      .then([
        {
          type: 'ProfileRescored',
          data: {
            assessment_id: 'asm_1',
            subject_id: 'sub_1',
            profile_id: 'prf_rebuilt',
            scoring_version: 'mn76-v2',
            replaces_profile_id: 'prf_1',
            language: 'fr',
            changed: true,
            completed_at: later(60_000).toISOString(),
            rescored_at: later(DAY).toISOString(),
            pii: {
              profile: expect.objectContaining({
                quality: expect.objectContaining({
                  ...flagged,
                  indicators: expect.objectContaining({ completion_seconds: expect.objectContaining({ value: 15 }) }),
                }),
              }),
            },
          },
        },
        {
          type: 'ProfileUpdated',
          data: {
            assessment_id: 'asm_1',
            subject_id: 'sub_1',
            profile_id: 'prf_rebuilt',
            previous_profile_id: 'prf_1',
            scoring_version: 'mn76-v2',
            event_id: 'evt_rebuilt',
            updated_at: later(DAY).toISOString(),
          },
        },
      ]);
  });

  it('refuses an answered_at before the start or in the future, naming the item, deciding nothing', () => {
    const early = { item_id: 'mn_001', value: 3, answered_at: later(-121_000).toISOString() };
    const future = { item_id: 'mn_002', value: 3, answered_at: later(121_000).toISOString() };
    const skewed = { item_id: 'mn_003', value: 3, answered_at: later(119_000).toISOString() };
    const given = assessment.given(started);
    given.when(submitting([early])).thenThrows(DomainError, (error) =>
      expect(error.details.errors).toEqual([
        expect.objectContaining({
          path: '/responses/0/answered_at',
          message: expect.stringMatching(/mn_001.*before the assessment started/),
        }),
      ]),
    );
    given
      .when(submitting([skewed, future]))
      .thenThrows(DomainError, (error) =>
        expect(error.details.errors).toEqual([
          expect.objectContaining({ path: '/responses/1/answered_at', message: expect.stringMatching(/mn_002.*in the future/) }),
        ]),
      );
    given.when(submitting([skewed])).then([submitted([skewed], 1)]);
  });
});
