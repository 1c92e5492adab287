import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import * as commands from '../../commands/assessment-links.js';
import { keyWorksAt } from '../../domain/api-keys.js';
import { statusAt } from '../../domain/assessment.js';
import { type AssessmentLink, LINK_TTL, linkStatusAt } from '../../domain/assessment-link.js';
import type { AssessmentLinkDocument, Collections } from '../../ports/collections.js';
import type { KeyStore } from '../../ports/key-store.js';
import type { EnvironmentServices } from '../../wiring/environments.js';
import { eventMetadata } from '../event-metadata.js';
import { fieldError } from '../field-errors.js';
import { listPage } from '../lists.js';
import { originOf } from '../origin.js';
import { openSealed, subjectGone } from '../personal-data.js';
import { ProblemError } from '../problem.js';
import type { Clock, RouteReply, RouteRequest } from '../route-handler.js';
import {
  createAssessmentLinkSchema,
  getAssessmentLinkSchema,
  type LinkResource,
  listAssessmentLinksSchema,
  revokeAssessmentLinkSchema,
} from './assessment-links-schemas.js';
import { requireSubject } from './subjects.js';

export interface LinkRouteOptions {
  clock: Clock;
  keys: KeyStore;
  publicUrl: string | undefined;
}

export function registerAssessmentLinkRoutes(app: FastifyInstance, options: LinkRouteOptions): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.post('/v1/nature/subjects/:id/assessment_links', { schema: createAssessmentLinkSchema }, (request, reply) =>
    createAssessmentLink(request, reply, options),
  );
  routes.get('/v1/nature/subjects/:id/assessment_links', { schema: listAssessmentLinksSchema }, (request) =>
    listAssessmentLinks(request, options.clock),
  );
  routes.get('/v1/nature/assessment_links/:id', { schema: getAssessmentLinkSchema }, (request) =>
    getAssessmentLink(request, options.clock),
  );
  routes.post('/v1/nature/assessment_links/:id/revoke', { schema: revokeAssessmentLinkSchema }, (request) =>
    revokeAssessmentLink(request, options.clock),
  );
}

/**
 * The origins a return URL may go to: those allowed to this environment's working publishable keys, the pages the
 * caller already runs the assessment from. A return URL elsewhere would make this service's page send people to
 * a site the account never named.
 */
async function allowedReturnOrigins(keys: KeyStore, environment: string, now: Date): Promise<Set<string>> {
  const pks = (await keys.list()).filter((key) => key.type === 'pk' && key.environment === environment && keyWorksAt(key, now));
  return new Set(pks.flatMap((key) => key.origins));
}

async function checkedReturnUrl(value: string | undefined, keys: KeyStore, environment: string, now: Date): Promise<string | null> {
  if (value === undefined) return null;
  const refuse = (predicate: string) =>
    new ProblemError('validation_failed', 'The request body has 1 invalid field(s).', {
      errors: [fieldError('body', ['return_url'], predicate)],
    });
  const url = URL.canParse(value) ? new URL(value) : undefined;
  if (url?.protocol !== 'https:' || url.username !== '' || url.password !== '')
    throw refuse('must be an absolute https:// URL without user name or password.');
  const allowed = await allowedReturnOrigins(keys, environment, now);
  if (!allowed.has(url.origin)) {
    throw refuse(
      allowed.size === 0
        ? `must be on an origin allowed to one of this environment's publishable keys, and none names any: mint a pk key with --origin ${url.origin}.`
        : `must be on an origin allowed to one of this environment's publishable keys (${[...allowed].join(', ')}); ${url.origin} is not.`,
    );
  }
  return url.href;
}

async function createAssessmentLink(
  request: RouteRequest<typeof createAssessmentLinkSchema>,
  reply: RouteReply<typeof createAssessmentLinkSchema>,
  { clock, keys, publicUrl }: LinkRouteOptions,
) {
  await requireSubject(request.env.readModels, request.params.id);
  const now = clock();
  const body = request.body;
  const returnUrl = await checkedReturnUrl(body?.return_url, keys, request.apiKey.environment, now);
  const { link, token, replayedAt } = await commands.createAssessmentLink(
    request.env,
    request.params.id,
    request.apiKey.environment,
    {
      language: body?.language ?? 'en',
      result_visible_to_subject: body?.result_visible_to_subject ?? false,
      return_url: returnUrl,
      expires_in_seconds: body?.expires_in_seconds ?? LINK_TTL.default,
    },
    eventMetadata(request),
    now,
  );
  const resource = toLinkResource(link, returnUrl, undefined, request.env.livemode, replayedAt ?? now);
  return reply.code(201).send({ ...resource, url: `${originOf(request, publicUrl)}/a/${token}` });
}

function toLinkResource(
  link: AssessmentLink,
  returnUrl: string | null,
  assessment: Collections['assessments'] | undefined,
  livemode: boolean,
  now: Date,
): LinkResource {
  const assessmentStatus = assessment === undefined ? undefined : statusAt(assessment, now);
  return {
    id: link.id,
    object: 'assessment_link',
    subject_id: link.subject_id,
    status: linkStatusAt(link, assessmentStatus, now),
    language: link.language,
    result_visible_to_subject: link.result_visible_to_subject,
    return_url: returnUrl,
    assessment_id: link.assessment_id,
    livemode,
    created_at: link.created_at,
    expires_at: link.expires_at,
    opened_at: link.opened_at,
    revoked_at: link.revoked_at,
  };
}

/** A stored link as the API shows it: its return URL opened, its status from its assessment's. An erased one is 410. */
async function fromDocument(env: EnvironmentServices, doc: Collections['assessment_links'], now: Date): Promise<LinkResource> {
  if ('erased' in doc) throw subjectGone(doc.subject_id);
  const { return_url: sealed, ...link } = doc;
  const [opened] = await openSealed<{ return_url: string | null }>(env.dataKeys, doc.subject_id, [sealed]);
  const assessment = link.assessment_id === null ? undefined : await env.readModels.get('assessments', link.assessment_id);
  return toLinkResource(link, opened!.return_url, assessment, env.livemode, now);
}

async function requireLink(env: EnvironmentServices, linkId: string): Promise<AssessmentLinkDocument> {
  const doc = await env.readModels.get('assessment_links', linkId);
  if (doc === undefined) throw new ProblemError('not_found', `No assessment link ${linkId}.`);
  if ('erased' in doc) throw subjectGone(doc.subject_id);
  return doc;
}

async function listAssessmentLinks(request: RouteRequest<typeof listAssessmentLinksSchema>, clock: Clock) {
  await requireSubject(request.env.readModels, request.params.id);
  const now = clock();
  const page = await listPage(request.env.readModels, 'assessment_links', request.query, { subject_id: request.params.id }, (doc) => doc);
  return { ...page, data: await Promise.all(page.data.map((doc) => fromDocument(request.env, doc, now))) };
}

async function getAssessmentLink(request: RouteRequest<typeof getAssessmentLinkSchema>, clock: Clock) {
  return fromDocument(request.env, await requireLink(request.env, request.params.id), clock());
}

async function revokeAssessmentLink(request: RouteRequest<typeof revokeAssessmentLinkSchema>, clock: Clock) {
  await requireLink(request.env, request.params.id);
  const now = clock();
  await commands.revokeAssessmentLink(request.env, request.params.id, eventMetadata(request), now);
  return fromDocument(request.env, await requireLink(request.env, request.params.id), now);
}
