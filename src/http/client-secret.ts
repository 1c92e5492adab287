import type { FastifyRequest } from 'fastify';
import { type Assessment, isOpen } from '../domain/assessment.js';
import { clientSecretMatches } from '../domain/client-secrets.js';
import { ProblemError } from './problem.js';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * The 401 a valid secret of a closed assessment earns, held back on a PATCH with an Idempotency-Key:
     * the retry of the batch that closed it must get its stored answer, so the refusal stands only when
     * nothing was stored for the key (idempotency.ts).
     */
    closedSecretRefusal: ProblemError | null;
  }
}

export const CLIENT_SECRET_HEADER = 'nature-client-secret';

/**
 * A pk key on an assessment route acts only with that assessment's client secret, and only while the
 * assessment is open. Every refusal of a presented secret is the same 401 (wrong, another assessment's,
 * unknown assessment, closed), so a pk key cannot probe which assessments exist.
 */
export async function checkClientSecret(request: FastifyRequest, now: Date): Promise<void> {
  const secret = request.headers[CLIENT_SECRET_HEADER];
  if (secret === undefined) {
    throw new ProblemError(
      'insufficient_scope',
      'A publishable (pk) key acts on an assessment only with its client secret in the Nature-Client-Secret header.',
    );
  }
  const { id, assessment_id } = request.params as { id: string; assessment_id: string };
  const doc = (await request.env.readModels.get('assessments', assessment_id)) as Assessment | undefined;
  const valid =
    typeof secret === 'string' && doc !== undefined && doc.subject_id === id && clientSecretMatches(secret, assessment_id, doc.client_secret_hash);
  if (!valid) throw new ProblemError('unauthenticated', 'The Nature-Client-Secret is not the client secret of this assessment.');
  if (!isOpen(doc, now)) {
    const refusal = new ProblemError('unauthenticated', 'This client secret no longer works: its assessment is no longer open (created or in_progress).');
    if (request.method !== 'PATCH' || request.headers['idempotency-key'] === undefined) throw refusal;
    request.closedSecretRefusal = refusal;
  }
}
