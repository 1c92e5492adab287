import type { FastifyRequest } from 'fastify';
import { resultReadable, statusAt } from '../domain/assessment.js';
import { assessmentNamedBy, clientSecretMatches, namesAssessment } from '../domain/client-secrets.js';
import { ProblemError } from './problem.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The 401 a valid secret of a closed assessment earns, held back on a PATCH with an Idempotency-Key:
     * the retry of the batch that closed it must get its stored answer (idempotency.ts); any other outcome,
     * an invalid body or key included, is answered with this refusal (errors.ts).
     */
    closedSecretRefusal: ProblemError | null;
    /**
     * The assessment whose result-visible secret a pk key read with (checkResultSecret): the subject's latest
     * profile is answered only while it is that assessment's.
     */
    resultOf: string | null;
  }
}

const CLIENT_SECRET_HEADER = 'nature-client-secret';

/** The Nature-Client-Secret a pk key came with; without one, a 403 saying what the route wants. */
function presentedSecret(request: FastifyRequest, wanted: string): string | string[] {
  const secret = request.headers[CLIENT_SECRET_HEADER];
  if (secret === undefined) throw new ProblemError('insufficient_scope', wanted);
  return secret;
}

/**
 * A pk key on an assessment route acts only with that assessment's client secret, and only while the
 * assessment is open. Every refusal of a presented secret is the same 401 (wrong, another assessment's,
 * unknown assessment, closed), so a pk key cannot probe which assessments exist.
 */
export async function checkClientSecret(request: FastifyRequest, now: Date): Promise<void> {
  const secret = presentedSecret(
    request,
    'A publishable (pk) key acts on an assessment only with its client secret in the Nature-Client-Secret header.',
  );
  const { id, assessment_id } = request.params as { id: string; assessment_id: string };
  const refused = new ProblemError('unauthenticated', 'The Nature-Client-Secret is not the client secret of this assessment.');
  // Another assessment's secret (or none at all) is told apart without reading anything.
  if (typeof secret !== 'string' || !namesAssessment(secret, assessment_id)) throw refused;
  const doc = await request.env.readModels.get('assessments', assessment_id);
  // An erased assessment keeps no secret's hash: nothing matches it.
  const hash = doc === undefined || 'erased' in doc ? undefined : doc.client_secret_hash;
  if (doc === undefined || doc.subject_id !== id || !clientSecretMatches(secret, assessment_id, hash)) throw refused;
  const status = statusAt(doc, now);
  if (status === 'created' || status === 'in_progress') return;
  // The secret's holder may learn what became of its assessment: a page reopened after the person finished shows so.
  const closed = new ProblemError(
    'unauthenticated',
    `This client secret no longer works: its assessment is ${status}, no longer created or in_progress.`,
    {
      assessment_status: status,
    },
  );
  if (request.method !== 'PATCH' || request.headers['idempotency-key'] === undefined) throw closed;
  request.closedSecretRefusal = closed;
}

/** The refusal of a result secret that does not open what was asked for: the same 401 whatever the reason. */
export const resultRefused = () =>
  new ProblemError(
    'unauthenticated',
    'The Nature-Client-Secret does not let this key read this profile: the secret of its assessment reads it for 24 hours after completion, when the assessment was started with result_visible_to_subject.',
  );

/**
 * A pk key reads a profile (by its id, or as its subject's latest) or its chart only with the client secret of
 * the profile's assessment, started with result_visible_to_subject and completed less than a day ago: the
 * secret's only use once its assessment is completed. Every refusal of a presented secret is the same 401, so
 * a pk key cannot probe which profiles exist.
 */
export async function checkResultSecret(request: FastifyRequest, now: Date): Promise<void> {
  const secret = presentedSecret(
    request,
    'A publishable (pk) key reads a profile only with the client secret of its assessment, started with result_visible_to_subject.',
  );
  const refused = resultRefused();
  const assessmentId = typeof secret === 'string' ? assessmentNamedBy(secret) : undefined;
  if (assessmentId === undefined) throw refused;
  const doc = await request.env.readModels.get('assessments', assessmentId);
  if (doc === undefined || 'erased' in doc || !clientSecretMatches(secret as string, assessmentId, doc.client_secret_hash)) throw refused;
  if (!resultReadable(doc, now)) throw refused;
  const { id } = request.params as { id: string };
  if (request.routeOptions.url === '/v1/nature/subjects/:id/profile') {
    // The subject's latest profile: the handler answers it only while it is this assessment's.
    if (doc.subject_id !== id) throw refused;
    request.resultOf = assessmentId;
    return;
  }
  // Any profile of the assessment: the completion's, or one a rebuild made since.
  if (!Object.values(doc.profiles).some((profile) => profile.profile_id === id)) throw refused;
}
