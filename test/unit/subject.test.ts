import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  type Assessment,
  assessmentPointer,
  decideAbandonAssessment,
  decideStartAssessment,
  evolveAssessment,
} from '../../src/domain/assessment.js';
import { DomainError } from '../../src/domain/errors.js';
import {
  decideCreateSubject,
  decideOpenAssessment,
  evolveSubject,
  externalIdStream,
  initialSubjectState,
  type SubjectEvent,
} from '../../src/domain/subject.js';

/** The hash of the client secret the start command mints; the domain only carries it. */
const SECRET_HASH = 'c'.repeat(64);

const consent = { text_version: 'v1', granted_at: '2026-11-01T00:00:00Z', ui_hash: `sha256:${'0'.repeat(64)}` };
const command = { subject_id: 'sub_1', external_subject_id: 'emp-1', metadata: { cohort: 'a' }, consent, now: '2026-11-21T00:00:00.000Z' };

/** Given these past events, when the command is decided. */
const given = (events: SubjectEvent[]) => ({ when: () => decideCreateSubject(events.reduce(evolveSubject, initialSubjectState), command) });

describe('subject decider', () => {
  it('creates a new subject: SubjectCreated with personal fields under pii, then ConsentRecorded', () => {
    expect(given([]).when()).toEqual([
      {
        type: 'SubjectCreated',
        data: { subject_id: 'sub_1', created_at: command.now, pii: { external_subject_id: 'emp-1', metadata: { cohort: 'a' } } },
      },
      { type: 'ConsentRecorded', data: { subject_id: 'sub_1', recorded_at: command.now, consent } },
    ]);
  });

  it('refuses to create a subject that exists, naming it', () => {
    const past = given([]).when();
    expect(() => given(past).when()).toThrowError(DomainError);
    expect(() => given(past).when()).toThrowError(expect.objectContaining({ code: 'subject_exists', details: { subject_id: 'sub_1' } }));
  });

  it('folds the events into an active subject with its consent', () => {
    const state = given([]).when().reduce(evolveSubject, initialSubjectState);
    expect(state).toEqual({
      status: 'active',
      id: 'sub_1',
      created_at: command.now,
      pii: { external_subject_id: 'emp-1', metadata: { cohort: 'a' } },
      consent,
      current_assessment: null,
    });
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

describe('opening an assessment on a subject', () => {
  const now = new Date('2026-11-21T00:00:00.000Z');
  const subject = given([]).when().reduce(evolveSubject, initialSubjectState);
  const started = (at: Date) =>
    decideStartAssessment(
      assessmentPointer({
        assessment_id: 'asm_1',
        subject_id: 'sub_1',
        requested_language: 'en',
        client_secret_hash: SECRET_HASH,
        now: at,
      }),
    ).reduce(evolveAssessment, undefined);

  it('opens one when the subject has none, pointing the subject at it', () => {
    const events = decideOpenAssessment(subject, undefined, {
      assessment_id: 'asm_2',
      requested_language: 'en',
      client_secret_hash: SECRET_HASH,
      now,
    });
    const pointer = {
      subject_id: 'sub_1',
      assessment_id: 'asm_2',
      requested_language: 'en',
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + 7 * 24 * 3600 * 1000).toISOString(),
      client_secret_hash: SECRET_HASH,
    };
    expect(events).toEqual([{ type: 'AssessmentOpened', data: pointer }]);
    expect(events.reduce(evolveSubject, subject)).toMatchObject({ current_assessment: pointer });
  });

  it('refuses while the current one is open, naming it', () => {
    expect(() =>
      decideOpenAssessment(subject, started(now), {
        assessment_id: 'asm_2',
        requested_language: 'en',
        client_secret_hash: SECRET_HASH,
        now,
      }),
    ).toThrowError(expect.objectContaining({ code: 'assessment_in_progress', details: { assessment_id: 'asm_1' } }));
  });

  it('opens one when the current one was abandoned or has expired', () => {
    const abandoned = decideAbandonAssessment(started(now), { subject_id: 'sub_1', now }).reduce(evolveAssessment, started(now));
    expect(
      decideOpenAssessment(subject, abandoned, { assessment_id: 'asm_2', requested_language: 'en', client_secret_hash: SECRET_HASH, now }),
    ).toHaveLength(1);
    const eightDaysLater = new Date(now.getTime() + 8 * 24 * 3600 * 1000);
    expect(
      decideOpenAssessment(subject, started(now) as Assessment, {
        assessment_id: 'asm_2',
        requested_language: 'en',
        client_secret_hash: SECRET_HASH,
        now: eightDaysLater,
      }),
    ).toHaveLength(1);
  });

  it('refuses for a subject that does not exist', () => {
    expect(() =>
      decideOpenAssessment(initialSubjectState, undefined, {
        assessment_id: 'asm_2',
        requested_language: 'en',
        client_secret_hash: SECRET_HASH,
        now,
      }),
    ).toThrowError(expect.objectContaining({ code: 'not_found' }));
  });
});
