import { assessmentStream } from '../domain/assessment.js';
import { type AuditEntry, assessmentAudit, expiryAudit, situationalAudit, subjectAudit } from '../domain/audit.js';
import { DomainError } from '../domain/errors.js';
import { situationalStream } from '../domain/situational-assessment.js';
import { subjectStream } from '../domain/subject.js';
import type { EventStore, RecordedEvent } from '../ports/event-store.js';
import { fold, readAggregate } from './aggregate.js';
import { assessmentAggregate, situationalAggregate, subjectAggregate } from './aggregates.js';

/**
 * A subject's history straight from the log, oldest first: its own stream, the stream of every assessment it
 * opened and of each of its situational assessments (`situational`: their ids, which the read models list), merged in
 * log order (an expiry at its time). Erased subjects keep theirs, with personal values null.
 */
export async function subjectHistory(
  events: EventStore,
  subjectId: string,
  now: Date,
  situational: readonly string[] = [],
): Promise<AuditEntry[]> {
  const own = subjectStream(subjectId);
  const subject = await readAggregate(events, own, subjectAggregate);
  if (subject.revision === -1n) throw new DomainError('not_found', `No subject ${subjectId}.`);
  const sources: RecordedEvent[] = [...subject.events];
  const expiries: AuditEntry[] = [];
  for (const opened of subject.events) {
    if (opened.type !== 'AssessmentOpened') continue;
    const stream = await readAggregate(events, assessmentStream(opened.data.assessment_id), assessmentAggregate);
    sources.push(...stream.events);
    const state = fold(assessmentAggregate, stream.events);
    const expired = state && expiryAudit(state, now);
    if (expired) expiries.push(expired);
  }
  for (const id of situational) sources.push(...(await readAggregate(events, situationalStream(id), situationalAggregate)).events);
  const history = sources
    .sort((a, b) => (a.position < b.position ? -1 : a.position > b.position ? 1 : 0))
    .flatMap((source) => (source.streamName === own ? subjectAudit(source) : (assessmentAudit(source) ?? situationalAudit(source))) ?? []);
  // The log's order stands; an expiry goes in before the first event recorded after its time.
  for (const expiry of expiries) {
    const later = history.findIndex((entry) => entry.occurred_at > expiry.occurred_at);
    history.splice(later === -1 ? history.length : later, 0, expiry);
  }
  return history;
}
