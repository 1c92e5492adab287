import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { type ProfileScores, servedVersion } from '../../domain/assessment.js';
import type { Collections } from '../../ports/collections.js';
import type { DataKeyStore } from '../../ports/data-keys.js';
import type { ReadModelStore } from '../../ports/read-models.js';
import { intelligences, natures } from '../../scoring/constructs.js';
import { items } from '../../scoring/item-bank.js';
import { languages } from '../../scoring/languages.js';
import { indicatorNames } from '../../scoring/quality.js';
import { describeScores } from '../../scoring/scorer.js';
import { NEWEST_SCORING_VERSION, scorers } from '../../scoring/scorers.js';
import type { EnvironmentServices } from '../../wiring/environments.js';
import { resultRefused } from '../client-secret.js';
import { openSealed, subjectGone } from '../personal-data.js';
import { ProblemError } from '../problem.js';
import { exampleIds, id, problems, skOrPkWithSecret, success, timestamp } from '../schemas.js';
import { requireSubject } from './subjects.js';

export const profileId = id('prf', exampleIds.profile, 'The profile id.');

const scoresOf = (names: readonly string[]) => z.strictObject(Object.fromEntries(names.map((name) => [name, z.number().min(0).max(1)])));

const description = z.object({
  construct: z.string(),
  band: z.enum(['medium_high', 'high', 'very_high']).describe('Only raw scores of 7 or more are described.'),
  text: z.string(),
});

/** A profile the scorer really makes, from a varied set of answers, as the document's example. */
const exampleScores = scorers[NEWEST_SCORING_VERSION]!(
  Object.fromEntries(items.map((item, index) => [item.id, 1 + ((index * 7 + Math.floor(index / 19)) % 5)])),
  // Timing as the web component sends it: an answer every 4 to 6 seconds.
  Object.fromEntries(
    items.map((item, index) => [
      item.id,
      {
        answered_at: new Date(Date.UTC(2026, 10, 21, 19, 19, 0) + index * 5000).toISOString(),
        response_time_ms: 4000 + ((index * 389) % 2000),
      },
    ]),
  ),
);
const exampleProfile = {
  id: exampleIds.profile,
  object: 'profile',
  subject_id: exampleIds.subject,
  assessment_id: exampleIds.assessment,
  ...exampleScores,
  descriptions: describeScores(exampleScores, 'en'),
  language: 'en',
  status: 'current',
  superseded_by: null,
  livemode: false,
  created_at: '2026-11-21T19:25:12.448Z',
};

const indicator = (description: string, unit: z.ZodNumber | z.ZodNullable<z.ZodNumber>) =>
  z.object({ value: unit, threshold: z.number(), flagged: z.boolean() }).describe(description);

const qualitySchema = z
  .object({
    version: z
      .string()
      .meta({ examples: ['quality-v2'] })
      .describe('The indicators and thresholds the profile was judged by (quality-v1 for profiles scored before quality-v2).'),
    flagged: z.boolean().describe('Whether any indicator is flagged.'),
    reasons: z.array(z.enum(indicatorNames)).describe('The flagged indicators, in the order of `indicators`.'),
    indicators: z.object({
      longest_identical_run: indicator(
        'The longest run of one answer in item order (long-string index); flagged at the threshold or more.',
        z.number().int(),
      ),
      response_variability: indicator('The standard deviation of the 76 answers; flagged below the threshold.', z.number()),
      construct_inconsistency: indicator(
        'The pooled standard deviation of answers within each construct; flagged above the threshold (about 1.41 for random answers).',
        z.number(),
      ),
      too_fast_share: indicator(
        'The share of timed items answered in under 1 s; flagged at the threshold or more. Null with fewer than 19 timed items (a quarter of the bank).',
        z.number().nullable(),
      ),
      completion_seconds: indicator(
        'Seconds from the first answer to the last; flagged below the threshold. Null without timing.',
        z.number().nullable(),
      ),
    }),
  })
  .meta({ id: 'ProfileQuality' });

const profileResource = z
  .object({
    id: profileId,
    object: z.literal('profile'),
    subject_id: id('sub', exampleIds.subject),
    assessment_id: id('asm', exampleIds.assessment),
    scoring_version: z.string().meta({ examples: [NEWEST_SCORING_VERSION] }),
    language: z
      .enum(languages)
      .describe("The assessment's language, which the narratives are in (descriptions.version v1 in English, v1-fr in French)."),
    natures: scoresOf(natures).describe('9 scores, 0.0..1.0, alphabetical'),
    intelligences: scoresOf(intelligences).describe('10 scores, 0.0..1.0, alphabetical'),
    descriptions: z.object({
      version: z.string(),
      natures: z.array(description).max(3),
      intelligences: z.array(description).max(3),
    }),
    quality: qualitySchema
      .nullable()
      .describe(
        'Indicators of careless responding (/docs/quality): a reason to look, not a verdict; they never change a score. Null for profiles scored before they existed, until a profile rebuild.',
      ),
    status: z
      .enum(['current', 'superseded'])
      .describe(
        "superseded: a profile rebuild re-scored the assessment with the active scoring version; superseded_by is the assessment's current profile.",
      ),
    superseded_by: id('prf', exampleIds.profile).nullable(),
    livemode: z.boolean(),
    created_at: timestamp,
  })
  .meta({ id: 'Profile', examples: [exampleProfile] });

type ProfileResource = z.infer<typeof profileResource>;

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

export function registerProfileRoutes(app: FastifyInstance): void {
  const routes = app.withTypeProvider<ZodTypeProvider>();

  routes.get(
    '/v1/nature/subjects/:id/profile',
    {
      schema: {
        tags: ['profiles'],
        operationId: 'getLatestProfile',
        summary: "The subject's latest profile",
        description:
          'The current profile of the most recently completed assessment: scored with the active scoring version once a profile rebuild ' +
          'has switched to it, else with the version that scored the completion. 404 profile_not_found until one completes.',
        params: z.strictObject({ id: id('sub', exampleIds.subject, 'The subject id.') }),
        response: {
          200: success("The profile of the subject's latest completed assessment.", profileResource),
          ...problems('not_found', 'profile_not_found', 'subject_erased'),
        },
        security: skOrPkWithSecret,
      },
      // The page of a result-visible assessment finds the person's profile here with a pk key (checkResultSecret).
      config: { resultSecret: true },
    },
    async (request) => {
      const { id } = request.params;
      const { readModels, livemode } = request.env;
      await requireSubject(readModels, id);
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
      const latest = served.sort((a, b) => (completion(a) < completion(b) ? 1 : -1))[0];
      if (!latest) throw new ProblemError('profile_not_found', 'The subject has no completed assessment yet.');
      if (request.resultOf !== null && latest.assessment_id !== request.resultOf) throw resultRefused();
      return toProfileResource(latest, latest, request.env.dataKeys, livemode);
    },
  );

  routes.get(
    '/v1/nature/profiles/:id',
    {
      schema: {
        tags: ['profiles'],
        operationId: 'getProfile',
        summary: 'Retrieve a profile',
        description:
          'By the profile id that a nature.assessment.completed or nature.profile.updated event carries. A profile that a rebuild replaced ' +
          'still answers, with status superseded and a link to the current one.',
        params: z.strictObject({ id: profileId }),
        response: { 200: success('The profile.', profileResource), ...problems('profile_not_found', 'subject_erased') },
        security: skOrPkWithSecret,
      },
      // A page whose assessment was started with result_visible_to_subject reads its profile with a pk key.
      config: { resultSecret: true },
    },
    (request) => profileById(request.env, request.params.id),
  );
}
