import { describe, expect, it } from 'vitest';
import { DomainError } from '../../src/domain/errors.js';
import { type SubjectEvent, decideCreateSubject, evolveSubject, externalIdStream, initialSubjectState } from '../../src/domain/subject.js';

const consent = { text_version: 'v1', granted_at: '2026-11-01T00:00:00Z', ui_hash: `sha256:${'0'.repeat(64)}` };
const command = { subject_id: 'sub_1', external_subject_id: 'emp-1', metadata: { cohort: 'a' }, consent, now: '2026-11-21T00:00:00.000Z' };

/** Given these past events, when the command is decided. */
const given = (events: SubjectEvent[]) => ({ when: () => decideCreateSubject(events.reduce(evolveSubject, initialSubjectState), command) });

describe('subject decider', () => {
  it('creates a new subject: SubjectCreated with personal fields under pii, then ConsentRecorded', () => {
    expect(given([]).when()).toEqual([
      { type: 'SubjectCreated', data: { subject_id: 'sub_1', created_at: command.now, pii: { external_subject_id: 'emp-1', metadata: { cohort: 'a' } } } },
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
    expect(state).toEqual({ status: 'active', id: 'sub_1', created_at: command.now, pii: { external_subject_id: 'emp-1', metadata: { cohort: 'a' } }, consent });
  });

  it('names the reservation stream by a digest, not by the external id itself', () => {
    expect(externalIdStream('emp-1')).toMatch(/^subject_ref-[0-9a-f]{64}$/);
    expect(externalIdStream('emp-1')).not.toContain('emp-1');
    expect(externalIdStream('emp-1')).not.toBe(externalIdStream('emp-2'));
  });
});
