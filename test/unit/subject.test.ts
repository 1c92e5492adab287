import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { assessmentAggregate, subjectAggregate } from '../../src/commands/aggregates.js';
import type { AssessmentEvent, AssessmentState, StartAssessment } from '../../src/domain/assessment.js';
import { DomainError } from '../../src/domain/errors.js';
import {
  type CreateSubject,
  decideCreateSubject,
  decideEraseSubject,
  decideOpenAssessment,
  externalIdStream,
  type SubjectEvent,
  type SubjectState,
} from '../../src/domain/subject.js';
import { deciderSpecification, refusal } from '../support/decider-spec.js';

/** The hash of the client secret the start command mints; the domain only carries it. */
const SECRET_HASH = 'c'.repeat(64);

/** The subject's commands; opening an assessment also takes the fold of the assessment the subject points to. */
type SubjectCommand =
  | ({ type: 'CreateSubject' } & CreateSubject)
  | ({ type: 'OpenAssessment'; current: AssessmentState } & StartAssessment)
  | ({ type: 'EraseSubject' } & Parameters<typeof decideEraseSubject>[1]);

const subject = deciderSpecification<SubjectState, SubjectEvent, SubjectCommand>({
  ...subjectAggregate,
  decide: (command, state) => {
    switch (command.type) {
      case 'CreateSubject':
        return decideCreateSubject(state, command);
      case 'OpenAssessment':
        return decideOpenAssessment(state, command.current, command);
      case 'EraseSubject':
        return decideEraseSubject(state, command);
    }
  },
});

const consent = { text_version: 'v1', granted_at: '2026-11-01T00:00:00Z', ui_hash: `sha256:${'0'.repeat(64)}` };
const creating: SubjectCommand = {
  type: 'CreateSubject',
  subject_id: 'sub_1',
  external_subject_id: 'emp-1',
  metadata: { cohort: 'a' },
  consent,
  event_id: 'evt_1',
  now: '2026-11-21T00:00:00.000Z',
};
const created: SubjectEvent[] = [
  {
    type: 'SubjectCreated',
    data: {
      subject_id: 'sub_1',
      created_at: '2026-11-21T00:00:00.000Z',
      pii: { external_subject_id: 'emp-1', metadata: { cohort: 'a' } },
      event_id: 'evt_1',
    },
  },
  { type: 'ConsentRecorded', data: { subject_id: 'sub_1', recorded_at: '2026-11-21T00:00:00.000Z', consent } },
];
const now = new Date('2026-11-21T00:00:00.000Z');
const erased: SubjectEvent[] = [
  ...created,
  { type: 'SubjectErased', data: { subject_id: 'sub_1', erased_at: now.toISOString(), reservation: 'subject_ref-1', event_id: 'evt_2' } },
];

describe('subject decider', () => {
  it('creates a new subject: SubjectCreated with personal fields under pii, then ConsentRecorded, folding to an active subject with its consent', () => {
    expect(subject.given([]).when(creating).then(created)).toEqual({
      status: 'active',
      id: 'sub_1',
      created_at: '2026-11-21T00:00:00.000Z',
      pii: { external_subject_id: 'emp-1', metadata: { cohort: 'a' } },
      consent,
      current_assessment: null,
    });
  });

  it('refuses to create a subject that exists, naming it (§Subjects: a second create answers 409 subject_exists with the existing id)', () => {
    subject
      .given(created)
      .when(creating)
      .thenThrows(DomainError, refusal('subject_exists', { subject_id: 'sub_1' }));
  });

  it('erases an active subject, keeping its consent and the fact of erasure (§Subjects: DELETE is erasure)', () => {
    expect(
      subject
        .given(created)
        .when({ type: 'EraseSubject', reservation: 'subject_ref-1', event_id: 'evt_2', now })
        .then(erased.slice(created.length)),
    ).toEqual({ status: 'erased', id: 'sub_1', created_at: '2026-11-21T00:00:00.000Z', consent, erased_at: now.toISOString() });
  });

  it('answers subject_erased to every command once erased (§Subjects: afterwards the subject answers 410 subject_erased)', () => {
    const erasedRefusal = refusal('subject_erased', { subject_id: 'sub_1' });
    subject.given(erased).when(creating).thenThrows(DomainError, erasedRefusal);
    subject.given(erased).when(opening(undefined)).thenThrows(DomainError, erasedRefusal);
    subject.given(erased).when({ type: 'EraseSubject', reservation: null, event_id: 'evt_2', now }).thenThrows(DomainError, erasedRefusal);
  });

  it('refuses to erase a subject that does not exist', () => {
    subject
      .given([])
      .when({ type: 'EraseSubject', reservation: null, event_id: 'evt_2', now })
      .thenThrows(DomainError, refusal('not_found'));
  });

  it('names the reservation stream by an HMAC under the environment secret, not by the id or its plain digest', () => {
    const secret = Buffer.alloc(32, 7);
    expect(externalIdStream('emp-1', secret)).toMatch(/^subject_ref-[0-9a-f]{64}$/);
    expect(externalIdStream('emp-1', secret)).not.toContain('emp-1');
    expect(externalIdStream('emp-1', secret)).not.toBe(externalIdStream('emp-2', secret));
    // Without the secret a guessed id cannot be confirmed: its plain SHA-256 is not the name, and another secret names another stream.
    expect(externalIdStream('emp-1', secret)).not.toContain(createHash('sha256').update('emp-1').digest('hex'));
    expect(externalIdStream('emp-1', secret)).not.toBe(externalIdStream('emp-1', Buffer.alloc(32, 8)));
  });
});

/** Opening asm_2 at `at`, the subject's current assessment folded to `current`. */
function opening(current: AssessmentState, at = now): SubjectCommand {
  return {
    type: 'OpenAssessment',
    current,
    assessment_id: 'asm_2',
    requested_language: 'en',
    client_secret_hash: SECRET_HASH,
    event_id: 'evt_3',
    now: at,
  };
}

describe('opening an assessment on a subject', () => {
  const asm1Started: AssessmentEvent = {
    type: 'AssessmentStarted',
    data: {
      assessment_id: 'asm_1',
      subject_id: 'sub_1',
      language: 'en',
      requested_language: 'en',
      item_set_version: 'mn76-items-v1',
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + 7 * 24 * 3600 * 1000).toISOString(),
      client_secret_hash: SECRET_HASH,
    },
  };
  /** The subject's current assessment, as the command folds it from its own stream. */
  const asm1 = (...events: AssessmentEvent[]) => events.reduce(assessmentAggregate.evolve, assessmentAggregate.initial);
  const opened = (at: Date): SubjectEvent => ({
    type: 'AssessmentOpened',
    data: {
      subject_id: 'sub_1',
      assessment_id: 'asm_2',
      requested_language: 'en',
      created_at: at.toISOString(),
      expires_at: new Date(at.getTime() + 7 * 24 * 3600 * 1000).toISOString(),
      client_secret_hash: SECRET_HASH,
      event_id: 'evt_3',
    },
  });

  it('opens one when the subject has none, pointing the subject at it', () => {
    const state = subject
      .given(created)
      .when(opening(undefined))
      .then([opened(now)]);
    expect(state).toMatchObject({ current_assessment: opened(now).data });
  });

  it('refuses while the current one is open, naming it (§Assessments: one open assessment per subject, 409 assessment_in_progress)', () => {
    subject
      .given(created)
      .when(opening(asm1(asm1Started)))
      .thenThrows(DomainError, refusal('assessment_in_progress', { assessment_id: 'asm_1' }));
  });

  it('opens one when the current one was abandoned or has expired (§Assessments: one open assessment per subject)', () => {
    const abandoned = asm1(asm1Started, { type: 'AssessmentAbandoned', data: { assessment_id: 'asm_1', abandoned_at: now.toISOString() } });
    subject
      .given(created)
      .when(opening(abandoned))
      .then([opened(now)]);
    const eightDaysLater = new Date(now.getTime() + 8 * 24 * 3600 * 1000);
    subject
      .given(created)
      .when(opening(asm1(asm1Started), eightDaysLater))
      .then([opened(eightDaysLater)]);
  });

  it('refuses for a subject that does not exist', () => {
    subject.given([]).when(opening(undefined)).thenThrows(DomainError, refusal('not_found'));
  });
});
