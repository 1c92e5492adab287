import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { type ProfileScores, servedVersion } from '../../domain/assessment.js';
import type { Collections } from '../../ports/collections.js';
import type { DataKeyStore } from '../../ports/data-keys.js';
import type { ReadModelStore } from '../../ports/read-models.js';
import { describeScores } from '../../scoring/scorer.js';
import type { EnvironmentServices } from '../../wiring/environments.js';
import { resultRefused } from '../client-secret.js';
import { openSealed, subjectGone } from '../personal-data.js';
import { ProblemError } from '../problem.js';
import type { RouteRequest } from '../route-handler.js';
import { getLatestProfileSchema, getProfileSchema, type ProfileResource } from './profiles-schemas.js';
import { requireSubject } from './subjects.js';

export function registerProfileRoutes(app: FastifyInstance): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();
  // A page whose assessment was started with result_visible_to_subject reads the person's profile with a pk key (checkResultSecret).
  routes.get('/v1/nature/subjects/:id/profile', { schema: getLatestProfileSchema, config: { resultSecret: true } }, getLatestProfile);
  routes.get('/v1/nature/profiles/:id', { schema: getProfileSchema, config: { resultSecret: true } }, (request) =>
    profileById(request.env, request.params.id),
  );
}

/** A profile document, or what its subject's erasure left of it. */
type Profile = Collections['profiles'];

/** The scoring version the API serves (the last one a rebuild activated) and every version ever activated. */
interface Serving {
  active: string | undefined;
  activated: string[];
}

async function serving(readModels: ReadModelStore): Promise<Serving> {
  const doc = await readModels.get('scoring_versions', 'current');
  return { active: doc?.active, activated: doc?.activated ?? [] };
}

/** A rebuild's profile whose version is not activated yet: it waits, unseen, for the switch. */
function staged(doc: Profile, { activated }: Serving): boolean {
  return doc.origin === 'rebuild' && !activated.includes(doc.scoring_version);
}

/** The profile served among one assessment's, by the domain's rule. Documents written before rebuilds existed have no origin: completions. */
function servedAmong(docs: Profile[], { active }: Serving): Profile | undefined {
  const byVersion = Object.fromEntries(docs.map((doc) => [doc.scoring_version, doc]));
  const completion = docs.find((doc) => doc.origin !== 'rebuild');
  const version = servedVersion({ profiles: byVersion, scoring_version: completion?.scoring_version ?? null }, active);
  return version === null ? undefined : byVersion[version];
}

/**
 * The profile as the API shows it, its scores and narratives opened from the document's sealed part. One erased
 * after its subject was read answers 410, as after.
 */
async function toProfileResource(doc: Profile, served: Profile, dataKeys: DataKeyStore, livemode: boolean): Promise<ProfileResource> {
  if ('erased' in doc) throw subjectGone(doc.subject_id);
  const superseded = served.id !== doc.id;
  const [pii] = await openSealed<{ profile: ProfileScores }>(dataKeys, doc.subject_id, [doc.pii]);
  const { natures, intelligences, descriptions = describeScores({ natures, intelligences }, doc.language), quality = null } = pii!.profile;
  return {
    id: doc.id,
    object: 'profile',
    subject_id: doc.subject_id,
    assessment_id: doc.assessment_id,
    scoring_version: doc.scoring_version,
    language: doc.language,
    natures,
    intelligences,
    descriptions,
    quality,
    status: superseded ? 'superseded' : 'current',
    superseded_by: superseded ? served.id : null,
    livemode,
    created_at: doc.created_at,
  };
}

/** Every profile document of a subject or an assessment (a handful: one per completion and rebuild). */
async function profilesWhere(readModels: ReadModelStore, where: Record<string, string>): Promise<Profile[]> {
  const docs: Profile[] = [];
  for (
    let page = await readModels.list('profiles', { where, limit: 100 });
    ;
    page = await readModels.list('profiles', { where, limit: 100, startingAfter: docs.at(-1)!.id })
  ) {
    docs.push(...page.data);
    if (!page.hasMore) return docs;
  }
}

/** A profile by its id, as GET /v1/nature/profiles/{id} shows it; 404 for one not served (yet), 410 once its subject is erased. */
export async function profileById({ readModels, dataKeys, livemode }: EnvironmentServices, id: string): Promise<ProfileResource> {
  const [doc, versions] = await Promise.all([readModels.get('profiles', id), serving(readModels)]);
  if (!doc || staged(doc, versions)) throw new ProblemError('profile_not_found', `No profile ${id}.`);
  // An erased subject's profiles answer 410 like every route under it.
  await requireSubject(readModels, doc.subject_id);
  const served = servedAmong(await profilesWhere(readModels, { assessment_id: doc.assessment_id }), versions) ?? doc;
  return toProfileResource(doc, served, dataKeys, livemode);
}

/** The current profile of the subject's most recently completed assessment. */
async function getLatestProfile(request: RouteRequest<typeof getLatestProfileSchema>) {
  const { id } = request.params;
  const { readModels, livemode } = request.env;
  await requireSubject(readModels, id);
  const latest = await latestProfile(readModels, id);
  if (!latest) throw new ProblemError('profile_not_found', 'The subject has no completed assessment yet.');
  if (request.resultOf !== null && latest.assessment_id !== request.resultOf) throw resultRefused();
  return toProfileResource(latest, latest, request.env.dataKeys, livemode);
}

/** The profile served for the subject's most recently completed assessment, if it has one. */
export async function latestProfile(readModels: ReadModelStore, id: string): Promise<Profile | undefined> {
  const [docs, versions] = await Promise.all([profilesWhere(readModels, { subject_id: id }), serving(readModels)]);
  const assessments = new Set(docs.map((doc) => doc.assessment_id));
  const served = [...assessments].flatMap(
    (assessmentId) =>
      servedAmong(
        docs.filter((doc) => doc.assessment_id === assessmentId),
        versions,
      ) ?? [],
  );
  const completion = (doc: Profile) => `${doc.completed_at ?? doc.created_at} ${doc.assessment_id}`;
  return served.sort((a, b) => (completion(a) < completion(b) ? 1 : -1))[0];
}
