import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import * as commands from '../../commands/assessment-links.js';
import { ACCOUNT_ID } from '../../domain/accounts.js';
import { statusAt } from '../../domain/assessment.js';
import { linkTokenMatches, parseLinkToken } from '../../domain/assessment-link.js';
import { DomainError } from '../../domain/errors.js';
import type { AccountStore } from '../../ports/account-store.js';
import type { Language } from '../../scoring/languages.js';
import type { EnvironmentServices, Environments } from '../../wiring/environments.js';
import { assessmentPage, HOSTED_LINK_SCRIPT, hostedPagePolicy, type Refusal, refusalPage } from '../hosted-link-page.js';
import { openSealed } from '../personal-data.js';
import type { Clock } from '../route-handler.js';
import { sendAsset, staticAsset } from '../static-asset.js';

export interface HostedLinkOptions {
  envs: Environments;
  /** Where the caller's name is kept (its production-access application); none: the page names no one. */
  accounts: AccountStore | undefined;
  clock: Clock;
}

/** The hosted page of an assessment link, and the script that offers its return link at the end. */
export function registerHostedLinkRoutes(app: FastifyInstance, options: HostedLinkOptions): void {
  const policy = hostedPagePolicy();
  const script = staticAsset(HOSTED_LINK_SCRIPT, 'text/javascript; charset=utf-8');
  app.get('/v1/embed/assessment-link.js', { schema: { hide: true } }, (request, reply) => sendAsset(request, reply, script));
  // No HEAD: a link checker's HEAD must not start the assessment the way a person's opening does. Any query is
  // taken (and ignored): mailing tools add their own (utm_source=…) to the links they carry.
  app.get<{ Params: { token: string } }>(
    '/a/:token',
    { schema: { hide: true, querystring: z.looseObject({}) }, exposeHeadRoute: false },
    (request, reply) => openLinkPage(request, reply, options, policy),
  );
}

const refusalStatus: Record<Refusal, number> = { invalid: 404, revoked: 410, expired: 410, busy: 409 };

async function callerName(accounts: AccountStore | undefined): Promise<string | undefined> {
  return (await accounts?.application(ACCOUNT_ID))?.organisation;
}

/**
 * Opens the link (commands.openAssessmentLink: the first opening starts the assessment, later ones resume it) and
 * answers the page. The page holds the token and a client secret, so no cache keeps it.
 */
async function openLinkPage(
  request: FastifyRequest<{ Params: { token: string } }>,
  reply: FastifyReply,
  { envs, accounts, clock }: HostedLinkOptions,
  policy: string,
) {
  reply.header('content-security-policy', policy).header('cache-control', 'no-store').header('x-robots-tag', 'noindex');
  const caller = await callerName(accounts);
  const refuse = (language: Language, refusal: Refusal) =>
    reply
      .code(refusalStatus[refusal])
      .type('text/html; charset=utf-8')
      .send(refusalPage(language, caller, refusal));
  const { token } = request.params;
  const named = parseLinkToken(token);
  if (named === undefined) return refuse('en', 'invalid');
  const env = envs[named.environment];
  const doc = await env.readModels.get('assessment_links', named.link_id);
  if (doc === undefined || !('token_hash' in doc) || !linkTokenMatches(token, doc.token_hash))
    return doc !== undefined && 'erased' in doc ? refuse('en', 'revoked') : refuse('en', 'invalid');
  const opened = await commands
    .openAssessmentLink(env, doc.id, { request_id: request.id, causation: 'assessment_link' }, clock())
    .catch((error: unknown) => {
      if (!(error instanceof DomainError)) throw error;
      if (error.code === 'assessment_in_progress') return { closed: 'busy' as const };
      if (error.code === 'subject_erased') return { closed: 'revoked' as const };
      throw error;
    });
  if (opened.closed !== undefined) return refuse(doc.language, opened.closed);
  const finished = await finishedState(env, opened.assessment_id, clock());
  if (finished === undefined) return refuse(doc.language, 'expired');
  const [sealed] = await openSealed<{ return_url: string | null }>(env.dataKeys, doc.subject_id, [doc.return_url]);
  const page = assessmentPage({
    language: doc.language,
    caller,
    token,
    clientSecret: opened.client_secret,
    subjectId: doc.subject_id,
    assessmentId: opened.assessment_id,
    returnUrl: sealed!.return_url,
    finished,
  });
  return reply.type('text/html; charset=utf-8').send(page);
}

/** Whether the link's assessment is finished (scoring or completed); undefined when it closed unfinished (expired, abandoned). */
async function finishedState(env: EnvironmentServices, assessmentId: string, now: Date): Promise<boolean | undefined> {
  const assessment = await env.readModels.get('assessments', assessmentId);
  const status = assessment === undefined ? 'created' : statusAt(assessment, now);
  if (status === 'expired' || status === 'abandoned') return undefined;
  return status === 'scoring' || status === 'completed';
}
