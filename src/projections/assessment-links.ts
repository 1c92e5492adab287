import { type AssessmentLinkEvent, evolveLink } from '../domain/assessment-link.js';
import type { CollectionProjection } from '../ports/projection.js';
import { sealedPart } from '../privacy/sealed-part.js';
import { erasureSweep } from './erasure-sweep.js';

/**
 * The `assessment_links` collection: each link as the domain folds it, its return URL kept sealed. The subject's
 * erasure leaves only that there was a link and when (the hosted page then says it is no longer valid).
 */
export const assessmentLinksProjection: CollectionProjection<AssessmentLinkEvent, 'assessment_links'> = {
  name: 'assessment_links',
  collection: 'assessment_links',
  canHandle: ['AssessmentLinkCreated', 'AssessmentLinkOpened', 'AssessmentLinkRevoked'],
  documentId: (event) => event.data.link_id,
  sweep: erasureSweep<'assessment_links'>(['id', 'subject_id', 'created_at', 'expires_at']),
  evolve(current, event) {
    if (current !== undefined && 'erased' in current) return current;
    if (event.type === 'AssessmentLinkCreated') return { ...evolveLink(undefined, event)!, return_url: sealedPart(event) };
    if (current === undefined) return null;
    const { return_url, ...link } = current;
    return { ...evolveLink(link, event)!, return_url };
  },
};
