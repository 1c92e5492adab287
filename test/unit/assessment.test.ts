import { describe, expect, it } from 'vitest';
import {
  type AssessmentEvent,
  type AssessmentState,
  assessmentPointer,
  decideAbandonAssessment,
  decideRescore,
  decideScoreAssessment,
  decideStartAssessment,
  decideSubmitResponses,
  evolveAssessment,
  statusAt,
} from '../../src/domain/assessment.js';
import type { DomainError } from '../../src/domain/errors.js';
import { scorers } from '../../src/scoring/scorers.js';
import { knownResponses } from '../support/known-answers.js';

/** The hash of the client secret the start command mints; the domain only carries it. */
const SECRET_HASH = 'c'.repeat(64);

const scoreV1 = scorers['mn76-v1']!;

const now = new Date('2026-11-21T10:00:00.000Z');
const later = (ms: number) => new Date(now.getTime() + ms);
const DAY = 24 * 60 * 60 * 1000;
const started = decideStartAssessment(
  assessmentPointer({ assessment_id: 'asm_1', subject_id: 'sub_1', requested_language: 'fr', client_secret_hash: SECRET_HASH, now }),
);
const fold = (events: AssessmentEvent[]): AssessmentState => events.reduce(evolveAssessment, undefined as AssessmentState);
let minted = 0;
const scoring = () => ({ profile_id: `prf_${++minted}`, event_id: `evt_${minted}`, scorer: scoreV1, now });
const submit = (events: AssessmentEvent[], responses: { item_id: string; value: number }[], at = now) =>
  decideSubmitResponses(fold(events), { subject_id: 'sub_1', responses, now: at, scoring });
const answered = (events: AssessmentEvent[]) => [...events, ...submit(events, knownResponses)];
/** All 76 answers as a batch recorded before batches carried their count and their scoring: the assessment waits in `scoring`. */
const answeredBefore = (events: AssessmentEvent[]): AssessmentEvent[] => [
  ...events,
  {
    type: 'ResponsesSubmitted',
    data: { assessment_id: 'asm_1', subject_id: 'sub_1', submitted_at: now.toISOString(), pii: { responses: knownResponses } },
  },
];

describe('assessment decider', () => {
  it('starts in created, in the language asked for, expiring 7 days later', () => {
    expect(fold(started)).toMatchObject({
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

  it('keeps English an assessment started before French existed, whatever it asked for', () => {
    const [first] = started as [Extract<AssessmentEvent, { type: 'AssessmentStarted' }>];
    expect(fold([{ ...first, data: { ...first.data, language: 'en' } }])).toMatchObject({ language: 'en', requested_language: 'fr' });
  });

  it('records a batch and moves to in_progress', () => {
    const events = submit(started, [{ item_id: 'mn_001', value: 4 }]);
    expect(events).toEqual([
      {
        type: 'ResponsesSubmitted',
        data: {
          assessment_id: 'asm_1',
          subject_id: 'sub_1',
          submitted_at: now.toISOString(),
          responses_received: 1,
          pii: { responses: [{ item_id: 'mn_001', value: 4 }] },
        },
      },
    ]);
    expect(fold([...started, ...events])).toMatchObject({ status: 'in_progress', answers: { mn_001: 4 } });
  });

  it('decides nothing for a retried batch, and records only what changed in a mixed one', () => {
    const first = [
      ...started,
      ...submit(started, [
        { item_id: 'mn_001', value: 4 },
        { item_id: 'mn_002', value: 2 },
      ]),
    ];
    expect(submit(first, [{ item_id: 'mn_001', value: 4 }])).toEqual([]);
    const changed = submit(first, [
      { item_id: 'mn_001', value: 4 },
      { item_id: 'mn_002', value: 5 },
    ]);
    expect(changed).toHaveLength(1);
    expect((changed[0]!.data as { pii: { responses: unknown[] } }).pii.responses).toEqual([{ item_id: 'mn_002', value: 5 }]);
    expect(fold([...first, ...changed])).toMatchObject({ answers: { mn_001: 4, mn_002: 5 } });
  });

  it('counts the distinct items answered after each batch, a changed answer counting once', () => {
    const first = [...started, ...submit(started, knownResponses.slice(0, 19))];
    const second = submit(first, [...knownResponses.slice(10, 30), { item_id: 'mn_001', value: (knownResponses[0]!.value % 5) + 1 }]);
    expect(second[0]!.data).toMatchObject({ responses_received: 30 });
    expect((second[0]!.data as { pii: { responses: unknown[] } }).pii.responses).toHaveLength(12);
  });

  it('scores the batch that completes the 76 answers in the same decision, minting ids for it alone', () => {
    minted = 0;
    const first = [...started, ...submit(started, knownResponses.slice(0, 75))];
    expect(minted).toBe(0);
    const last = submit(first, knownResponses.slice(75));
    expect(minted).toBe(1);
    expect(last.map((event) => event.type)).toEqual(['ResponsesSubmitted', 'ScoringCompleted']);
    expect(last[0]!.data).toMatchObject({ responses_received: 76 });
    expect(last[1]).toMatchObject({
      type: 'ScoringCompleted',
      data: { profile_id: 'prf_1', event_id: 'evt_1', scoring_version: 'mn76-v1', subject_id: 'sub_1' },
    });
    expect(fold([...first, ...last])).toMatchObject({ status: 'completed', profile_id: 'prf_1', completed_at: now.toISOString() });
    // The log keeps the scores only: the narratives are derived from them where the profile is shown.
    const { scoring_version: _version, ...scores } = scoreV1(Object.fromEntries(knownResponses.map((r) => [r.item_id, r.value])));
    expect((last[1]!.data as { pii: unknown }).pii).toStrictEqual({ profile: scores });
  });

  it('refuses responses once completed, and a second completing batch (the one that lost the race) is refused too', () => {
    const events = answered(started);
    for (const batch of [[{ item_id: 'mn_001', value: 1 }], knownResponses]) {
      expect(() => submit(events, batch)).toThrowError(
        expect.objectContaining({ code: 'assessment_not_open', details: { assessment_status: 'completed' } }),
      );
    }
  });

  it('leaves an assessment completed by a batch without a count in scoring, refusing responses', () => {
    const events = answeredBefore(started);
    expect(fold(events)).toMatchObject({ status: 'scoring' });
    expect(() => submit(events, [{ item_id: 'mn_001', value: 1 }])).toThrowError(
      expect.objectContaining({ code: 'assessment_not_open', details: { assessment_status: 'scoring' } }),
    );
  });

  it('scores an assessment waiting in scoring once: ScoringCompleted in scoring, nothing after', () => {
    const events = answeredBefore(started);
    const scored = decideScoreAssessment(fold(events), () => ({ profile_id: 'prf_1', event_id: 'evt_1', scorer: scoreV1, now }));
    expect(scored).toHaveLength(1);
    expect(scored[0]).toMatchObject({
      type: 'ScoringCompleted',
      data: { profile_id: 'prf_1', scoring_version: 'mn76-v1', subject_id: 'sub_1' },
    });
    const completed = [...events, ...scored];
    expect(fold(completed)).toMatchObject({ status: 'completed', profile_id: 'prf_1', completed_at: now.toISOString() });
    minted = 0;
    expect(decideScoreAssessment(fold(completed), scoring)).toEqual([]);
    expect(decideScoreAssessment(fold(started), scoring)).toEqual([]);
    expect(minted).toBe(0);
  });

  it('abandons an open assessment; an abandoned one refuses responses and a second abandon', () => {
    const abandoned = [...started, ...decideAbandonAssessment(fold(started), { subject_id: 'sub_1', now })];
    expect(fold(abandoned)).toMatchObject({ status: 'abandoned' });
    for (const attempt of [
      () => submit(abandoned, [{ item_id: 'mn_001', value: 1 }]),
      () => decideAbandonAssessment(fold(abandoned), { subject_id: 'sub_1', now }),
    ]) {
      expect(attempt).toThrowError(expect.objectContaining({ code: 'assessment_not_open', details: { assessment_status: 'abandoned' } }));
    }
  });

  it('expires an open assessment 7 days after creation: expired refuses responses', () => {
    const justBefore = later(7 * DAY - 1);
    const expiry = later(7 * DAY);
    expect(statusAt(fold(started)!, justBefore)).toBe('created');
    expect(statusAt(fold(started)!, expiry)).toBe('expired');
    expect(submit(started, [{ item_id: 'mn_001', value: 3 }], justBefore)).toHaveLength(1);
    expect(() => submit(started, [{ item_id: 'mn_001', value: 3 }], expiry)).toThrowError(
      expect.objectContaining({ details: { assessment_status: 'expired' } }),
    );
  });

  it('never expires a completed assessment', () => {
    expect(statusAt(fold(answered(started))!, later(30 * DAY))).toBe('completed');
  });

  it('answers not_found for an assessment that does not exist or belongs to another subject', () => {
    expect(() => submit([], [{ item_id: 'mn_001', value: 1 }])).toThrowError(expect.objectContaining({ code: 'not_found' }));
    expect(() =>
      decideSubmitResponses(fold(started), { subject_id: 'sub_2', responses: [{ item_id: 'mn_001', value: 1 }], now, scoring }),
    ).toThrowError(expect.objectContaining({ code: 'not_found' }));
  });
});

describe('timing and quality through the assessment', () => {
  const timed = knownResponses.map((response, index) => ({
    ...response,
    answered_at: new Date(now.getTime() + (index + 1) * 200).toISOString(),
    response_time_ms: 200,
  }));
  const completedFast = (): AssessmentEvent[] => [...started, ...submit(started, timed, later(60_000))];

  it('scores with the timing sent: the completion carries the quality, sealed with the scores', () => {
    const completion = completedFast().at(-1)!;
    expect(completion.type).toBe('ScoringCompleted');
    const { quality } = (completion as Extract<AssessmentEvent, { type: 'ScoringCompleted' }>).data.pii!.profile;
    expect(quality?.reasons).toEqual(['too_fast_share', 'completion_seconds']);
  });

  it('recomputes the quality on a rebuild with the new version, the timing kept with the answers', () => {
    const rescored = decideRescore(fold(completedFast()), {
      scoring_version: 'mn76-v2',
      scorerOf: (version) => scorers[version]!,
      active_version: undefined,
      notify: true,
      profile_id: 'prf_rebuilt',
      event_id: 'evt_rebuilt',
      now: later(DAY),
    });
    const profile = (rescored[0] as Extract<AssessmentEvent, { type: 'ProfileRescored' }>).data.pii!.profile;
    expect(profile.quality?.reasons).toEqual(['too_fast_share', 'completion_seconds']);
    expect(profile.quality?.indicators.completion_seconds.value).toBe(15);
  });

  it('refuses an answered_at before the start or in the future, naming the item, deciding nothing', () => {
    const events = started;
    const early = { item_id: 'mn_001', value: 3, answered_at: later(-121_000).toISOString() };
    const future = { item_id: 'mn_002', value: 3, answered_at: later(121_000).toISOString() };
    const skewed = { item_id: 'mn_003', value: 3, answered_at: later(119_000).toISOString() };
    const refusal = (responses: { item_id: string; value: number }[]) => {
      try {
        submit(events, responses);
      } catch (error) {
        return (error as DomainError).details.errors;
      }
      throw new Error('not refused');
    };
    expect(refusal([early])).toEqual([
      expect.objectContaining({
        path: '/responses/0/answered_at',
        message: expect.stringMatching(/mn_001.*before the assessment started/),
      }),
    ]);
    expect(refusal([skewed, future])).toEqual([
      expect.objectContaining({ path: '/responses/1/answered_at', message: expect.stringMatching(/mn_002.*in the future/) }),
    ]);
    expect(submit(events, [skewed])).toHaveLength(1);
  });
});
