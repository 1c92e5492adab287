import { type AssessmentPointer, assessmentStream, evolveAssessment } from '../domain/assessment.js';
import { type AuditEntry, assessmentAudit, expiryAudit, subjectAudit } from '../domain/audit.js';
import { DomainError } from '../domain/errors.js';
import { subjectStream } from '../domain/subject.js';
import type { EventStore } from '../ports/event-store.js';
import { fold } from './handle-command.js';

/**
 * A subject's history straight from the log, oldest first: its own stream and the stream of every
 * assessment it opened, merged in log order (an expiry at its time). Erased subjects keep theirs, with
 * personal values null.
 */
export async function subjectHistory(events: EventStore, subjectId: string, now: Date): Promise<AuditEntry[]> {
  const own = subjectStream(subjectId);
  const subject = await events.readStream(own);
  if (subject.revision === -1n) throw new DomainError('not_found', `No subject ${subjectId}.`);
  const sources = [...subject.events];
  const expiries: AuditEntry[] = [];
  for (const opened of subject.events.filter((event) => event.type === 'AssessmentOpened')) {
    const stream = await events.readStream(assessmentStream((opened.data as AssessmentPointer).assessment_id));
    sources.push(...stream.events);
    const state = fold({ initial: undefined, evolve: evolveAssessment }, stream.events);
    const expired = state && expiryAudit(state, now);
    if (expired) expiries.push(expired);
  }
  const history = sources
    .sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0))
    .flatMap((source) => (source.streamName === own ? subjectAudit(source) : assessmentAudit(source)) ?? []);
  // The log's order stands; an expiry goes in before the first event recorded after its time.
  for (const expiry of expiries) {
    const later = history.findIndex((entry) => entry.occurred_at > expiry.occurred_at);
    history.splice(later === -1 ? history.length : later, 0, expiry);
  }
  return history;
}
