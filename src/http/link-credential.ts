import type { FastifyRequest } from 'fastify';
import type { ApiKeyRecord } from '../domain/api-keys.js';
import { linkTokenMatches, parseLinkToken } from '../domain/assessment-link.js';
import { assessmentNamedBy } from '../domain/client-secrets.js';
import type { Environments } from '../wiring/environments.js';
import { ProblemError } from './problem.js';

/** A hosted link's token presented as a key: what it stands for, and the one assessment it may act on. */
export interface LinkGrant {
  key: ApiKeyRecord;
  assessment_id: string;
}

/** Whether `raw` has the form of an assessment link's token (parseLinkToken), so the gate asks for no API key. */
export const isLinkToken = (raw: string) => parseLinkToken(raw) !== undefined;

/**
 * The hosted page calls the API with its link's token where an embedding page sends a publishable key: it stands
 * for a pk key with nature:read and no origins, named by the link's id (which the audit and the rate limit then
 * show), and works only while the link is opened and neither revoked nor erased. It grants nothing a pk key does
 * not: the assessment routes still want that assessment's client secret (refuseOtherAssessment narrows it further,
 * to the link's own), so a leaked URL is worth what a leaked client secret is.
 */
export async function linkGrant(raw: string, envs: Environments): Promise<LinkGrant | undefined> {
  const named = parseLinkToken(raw);
  if (named === undefined) return undefined;
  const doc = await envs[named.environment].readModels.get('assessment_links', named.link_id);
  if (doc === undefined || 'erased' in doc || doc.revoked_at !== null || doc.assessment_id === null) return undefined;
  if (!linkTokenMatches(raw, doc.token_hash)) return undefined;
  const key: ApiKeyRecord = {
    id: doc.id,
    name: 'assessment link',
    environment: named.environment,
    type: 'pk',
    scopes: ['nature:read'],
    hash: doc.token_hash,
    last4: raw.slice(-4),
    created_at: doc.created_at,
    revoked_at: null,
    revoked_reason: null,
    rotated_from: null,
    origins: [],
    last_used_at: null,
  };
  return { key, assessment_id: doc.assessment_id };
}

/** A link's token acts with its own assessment's client secret only: any other secret is refused before it is checked. */
export function refuseOtherAssessment(request: FastifyRequest, grant: LinkGrant): void {
  const secret = request.headers['nature-client-secret'];
  if (secret === undefined) return;
  if (typeof secret !== 'string' || assessmentNamedBy(secret) !== grant.assessment_id)
    throw new ProblemError('unauthenticated', 'The Nature-Client-Secret is not the client secret of this link’s assessment.');
}
