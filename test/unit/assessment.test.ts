import { describe, expect, it } from 'vitest';
import {
  type AssessmentEvent,
  type AssessmentState,
  decideAbandonAssessment,
  decideScoreAssessment,
  assessmentPointer,
  decideStartAssessment,
  decideSubmitResponses,
  evolveAssessment,
  statusAt,
} from '../../src/domain/assessment.js';
import { scorers } from '../../src/scoring/scorers.js';
import { knownResponses } from '../support/known-answers.js';

const scoreV1 = scorers['mn76-v1']!;

const now = new Date('2026-11-21T10:00:00.000Z');
const later = (ms: number) => new Date(now.getTime() + ms);
const DAY = 24 * 60 * 60 * 1000;
const started = decideStartAssessment(assessmentPointer({ assessment_id: 'asm_1', subject_id: 'sub_1', requested_language: 'fr', now }));
const fold = (events: AssessmentEvent[]): AssessmentState => events.reduce(evolveAssessment, undefined as AssessmentState);
const submit = (events: AssessmentEvent[], responses: { item_id: string; value: number }[], at = now) =>
  decideSubmitResponses(fold(events), { subject_id: 'sub_1', responses, now: at });
const answered = (events: AssessmentEvent[]) => [...events, ...submit(events, knownResponses)];

describe('assessment decider', () => {
  it('starts in created, in English whatever was asked for, expiring 7 days later', () => {
    expect(fold(started)).toMatchObject({
      id: 'asm_1',
      subject_id: 'sub_1',
      status: 'created',
      language: 'en',
      requested_language: 'fr',
      item_set_version: 'mn76-items-v1',
      answers: {},
      expires_at: later(7 * DAY).toISOString(),
    });
  });

  it('records a batch and moves to in_progress', () => {
    const events = submit(started, [{ item_id: 'mn_001', value: 4 }]);
    expect(events).toEqual([{ type: 'ResponsesSubmitted', data: { assessment_id: 'asm_1', subject_id: 'sub_1', submitted_at: now.toISOString(), pii: { responses: [{ item_id: 'mn_001', value: 4 }] } } }]);
    expect(fold([...started, ...events])).toMatchObject({ status: 'in_progress', answers: { mn_001: 4 } });
  });

  it('decides nothing for a retried batch, and records only what changed in a mixed one', () => {
    const first = [...started, ...submit(started, [{ item_id: 'mn_001', value: 4 }, { item_id: 'mn_002', value: 2 }])];
    expect(submit(first, [{ item_id: 'mn_001', value: 4 }])).toEqual([]);
    const changed = submit(first, [{ item_id: 'mn_001', value: 4 }, { item_id: 'mn_002', value: 5 }]);
    expect(changed).toHaveLength(1);
    expect((changed[0]!.data as { pii: { responses: unknown[] } }).pii.responses).toEqual([{ item_id: 'mn_002', value: 5 }]);
    expect(fold([...first, ...changed])).toMatchObject({ answers: { mn_001: 4, mn_002: 5 } });
  });

  it('moves to scoring when the 76th distinct item is answered, and then refuses responses', () => {
    const events = answered(started);
    expect(fold(events)).toMatchObject({ status: 'scoring' });
    expect(() => submit(events, [{ item_id: 'mn_001', value: 1 }])).toThrowError(expect.objectContaining({ code: 'assessment_not_open', details: { assessment_status: 'scoring' } }));
  });

  it('scores once: ScoringCompleted in scoring, nothing after', () => {
    const events = answered(started);
    const scored = decideScoreAssessment(fold(events), { profile_id: 'prf_1', event_id: 'evt_1', scorer: scoreV1, now });
    expect(scored).toHaveLength(1);
    expect(scored[0]).toMatchObject({ type: 'ScoringCompleted', data: { profile_id: 'prf_1', scoring_version: 'mn76-v1', subject_id: 'sub_1' } });
    const completed = [...events, ...scored];
    expect(fold(completed)).toMatchObject({ status: 'completed', profile_id: 'prf_1', completed_at: now.toISOString() });
    expect(decideScoreAssessment(fold(completed), { profile_id: 'prf_2', event_id: 'evt_2', scorer: scoreV1, now })).toEqual([]);
    expect(decideScoreAssessment(fold(started), { profile_id: 'prf_2', event_id: 'evt_2', scorer: scoreV1, now })).toEqual([]);
  });

  it('abandons an open assessment; an abandoned one refuses responses and a second abandon', () => {
    const abandoned = [...started, ...decideAbandonAssessment(fold(started), { subject_id: 'sub_1', now })];
    expect(fold(abandoned)).toMatchObject({ status: 'abandoned' });
    for (const attempt of [() => submit(abandoned, [{ item_id: 'mn_001', value: 1 }]), () => decideAbandonAssessment(fold(abandoned), { subject_id: 'sub_1', now })]) {
      expect(attempt).toThrowError(expect.objectContaining({ code: 'assessment_not_open', details: { assessment_status: 'abandoned' } }));
    }
  });

  it('expires an open assessment 7 days after creation: expired refuses responses', () => {
    const justBefore = later(7 * DAY - 1);
    const expiry = later(7 * DAY);
    expect(statusAt(fold(started)!, justBefore)).toBe('created');
    expect(statusAt(fold(started)!, expiry)).toBe('expired');
    expect(submit(started, [{ item_id: 'mn_001', value: 3 }], justBefore)).toHaveLength(1);
    expect(() => submit(started, [{ item_id: 'mn_001', value: 3 }], expiry)).toThrowError(expect.objectContaining({ details: { assessment_status: 'expired' } }));
  });

  it('never expires a completed assessment', () => {
    const events = answered(started);
    const completed = [...events, ...decideScoreAssessment(fold(events), { profile_id: 'prf_1', event_id: 'evt_1', scorer: scoreV1, now })];
    expect(statusAt(fold(completed)!, later(30 * DAY))).toBe('completed');
  });

  it('answers not_found for an assessment that does not exist or belongs to another subject', () => {
    expect(() => submit([], [{ item_id: 'mn_001', value: 1 }])).toThrowError(expect.objectContaining({ code: 'not_found' }));
    expect(() => decideSubmitResponses(fold(started), { subject_id: 'sub_2', responses: [{ item_id: 'mn_001', value: 1 }], now })).toThrowError(
      expect.objectContaining({ code: 'not_found' }),
    );
  });
});
