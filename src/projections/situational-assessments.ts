import type { SituationalAssessmentEvent } from '../domain/situational-assessment.js';
import type { CollectionProjection } from '../ports/projection.js';
import type { ReadModelStore } from '../ports/read-models.js';
import { sealedPart } from '../privacy/sealed-part.js';
import { erasureSweep } from './erasure-sweep.js';

/** The `situational_assessments` collection: each request and how it ended; a result stays sealed as the log holds it. */
export const situationalAssessmentsProjection: CollectionProjection<SituationalAssessmentEvent, 'situational_assessments'> = {
  name: 'situational_assessments',
  collection: 'situational_assessments',
  canHandle: ['SituationalAssessmentRequested', 'SituationalAssessmentCompleted', 'SituationalAssessmentRecomputed'],
  documentId: (event) => event.data.situational_assessment_id,
  // What stays once the subject is erased: that there was one and how it ended.
  sweep: erasureSweep<'situational_assessments'>(['id', 'subject_id', 'status', 'created_at', 'completed_at']),
  evolve(current, event) {
    if (current !== undefined && 'erased' in current) return current;
    if (event.type === 'SituationalAssessmentRequested') {
      const { situational_assessment_id: id, subject_id, profile_id, language, created_at } = event.data;
      return { id, subject_id, profile_id, language, status: 'pending', created_at };
    }
    if (current === undefined) return null;
    // A recomputed outcome replaces the one shown whole; it keeps when the request was first read.
    const { failure_code: _before, pii: _result, ...kept } = current;
    const { status, failure_code, method_version, pii } = event.data;
    return {
      ...kept,
      status,
      ...(failure_code !== undefined && { failure_code }),
      method_version,
      completed_at:
        event.type === 'SituationalAssessmentCompleted' ? event.data.completed_at : (current.completed_at ?? event.data.recomputed_at),
      ...(pii !== null && { pii: sealedPart(event) }),
    };
  },
};

/** The ids of every situational assessment of a subject, erased ones included (for its audit). */
export async function situationalIdsOf(readModels: ReadModelStore, subjectId: string): Promise<string[]> {
  const ids: string[] = [];
  for (let page = await readModels.list('situational_assessments', { where: { subject_id: subjectId }, limit: 100 }); ; ) {
    ids.push(...page.data.map((doc) => doc.id));
    if (!page.hasMore) return ids;
    page = await readModels.list('situational_assessments', { where: { subject_id: subjectId }, limit: 100, startingAfter: ids.at(-1)! });
  }
}
