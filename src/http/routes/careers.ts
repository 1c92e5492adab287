import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { CareersIndex } from '../../careers/careers-index.js';
import type { Career, ConstructProfile, Occupation, OccupationMatch, ResultsPage, SearchResults } from '../../careers/catalogue.js';
import { assertOneCursor, invalidCursor, type ListParams } from '../lists.js';
import { CATALOGUE_MISSING_DETAIL, ProblemError } from '../problem.js';
import type { RouteRequest } from '../route-handler.js';
import {
  careerResource,
  getCareerSchema,
  listCareersSchema,
  matchCareersSchema,
  occupationResource,
  TITLES_PER_MATCH,
  titleRef,
} from './careers-schemas.js';
import { profileById } from './profiles.js';

/** Where the app finds the catalogue it serves now: undefined until an operator imports one (src/wiring/careers-source.ts). */
export interface CareersCatalogue {
  current(): CareersIndex | undefined;
}

/** A server nobody gave a catalogue source: every careers route answers 503 careers_catalogue_missing. */
export const noCareersCatalogue: CareersCatalogue = { current: () => undefined };

export function registerCareerRoutes(app: FastifyInstance, careers: CareersCatalogue): void {
  const served = (): CareersIndex => {
    const index = careers.current();
    if (index === undefined) throw new ProblemError('careers_catalogue_missing', CATALOGUE_MISSING_DETAIL);
    return index;
  };
  // Before validation: a server without a catalogue says so whatever the request asks. A callback, as the app's other hooks.
  const preValidation = (_request: FastifyRequest, _reply: FastifyReply, done: (error?: Error) => void) => {
    if (careers.current() === undefined) return done(new ProblemError('careers_catalogue_missing', CATALOGUE_MISSING_DETAIL));
    done();
  };
  const config = { scope: 'careers:read' as const };
  const routes = app.withTypeProvider<ZodTypeProvider>();
  routes.get('/v1/careers', { schema: listCareersSchema, config, preValidation }, (request, reply) =>
    sendJson(reply, listCareers(served(), request)),
  );
  routes.get('/v1/careers/:id', { schema: getCareerSchema, config, preValidation }, (request, reply) =>
    sendJson(reply, getCareer(served(), request.params.id)),
  );
  routes.post('/v1/careers/matches', { schema: matchCareersSchema, config, preValidation }, async (request, reply) => {
    sendJson(reply, await matchCareers(served(), request));
    return reply;
  });
}

/**
 * The answer's JSON as it is (fastify sends a string of JSON unchanged). The careers answers are put together from
 * each occupation's JSON, made and checked against its schema once per catalogue (below), and each career's few own
 * fields: serialising and checking twenty careers with their profiles on every request cost several times the search
 * itself. A string, not a Buffer: Node writes it to the socket with the headers, where a page's Buffer was one more
 * allocation and copy.
 */
function sendJson(reply: FastifyReply, json: string): void {
  reply.type('application/json; charset=utf-8').send(json);
}

/** JSON made once per catalogue object (they live as long as the catalogue), checked against its schema then. */
function memoJson<K extends object, S extends z.ZodType>(schema: S, make: (key: K) => z.input<S>) {
  return memo((key: K) => JSON.stringify(schema.parse(make(key))));
}

function memo<K extends object, V>(make: (key: K) => V): (key: K) => V {
  const made = new WeakMap<K, V>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) {
      value = make(key);
      made.set(key, value);
    }
    return value;
  };
}

const versionJson = (index: CareersIndex) => JSON.stringify(index.version);

function listCareers(index: CareersIndex, request: RouteRequest<typeof listCareersSchema>): string {
  const { query, job_zone, occupation_code } = request.query;
  const found = index.search({
    ...(query !== undefined && { query }),
    ...(job_zone !== undefined && { jobZones: job_zone }),
    ...(occupation_code !== undefined && { occupationCode: occupation_code }),
  });
  const page = resultsPage(found, request.query);
  let json = '{"object":"list","data":[';
  page.careers.forEach((career, i) => {
    json += `${i === 0 ? '' : ','}{${ownFields(career)},${occupationPart(index, career)}}`;
  });
  return `${json}],"has_more":${page.hasMore},"catalogue_version":${versionJson(index)}}`;
}

/** The page a list request asks for, as every list reads its cursors. */
function resultsPage(results: SearchResults, params: ListParams): ResultsPage {
  assertOneCursor(params);
  const { limit, starting_after: after, ending_before: before } = params;
  const page = results.page({ limit, ...(after !== undefined && { after }), ...(before !== undefined && { before }) });
  if (page === undefined) throw invalidCursor((after ?? before)!);
  return page;
}

function getCareer(index: CareersIndex, id: string): string {
  const career = index.career(id);
  if (career === undefined) throw new ProblemError('career_not_found', `No career ${id}.`);
  return `{${ownFields(career)},${occupationPart(index, career)},"catalogue_version":${versionJson(index)}}`;
}

async function matchCareers(index: CareersIndex, request: RouteRequest<typeof matchCareersSchema>): Promise<string> {
  const { profile_id: profileId, profile, job_zone, limit } = request.body;
  const person = profileId === undefined ? profile! : await profileScores(request, profileId);
  const matches = index.match(person, { limit, ...(job_zone !== undefined && { jobZones: job_zone }) });
  const data = matches.map((match) => matchJson(index, match)).join(',');
  return `{"object":"list","data":[${data}],"has_more":false,"catalogue_version":${versionJson(index)},"profile_id":${JSON.stringify(profileId ?? null)}}`;
}

/** A stored profile's scores, read as GET /v1/nature/profiles/{id} reads it: that route's scope, 404 and 410 too. */
async function profileScores(request: RouteRequest<typeof matchCareersSchema>, id: string): Promise<ConstructProfile> {
  if (!request.apiKey.scopes.includes('nature:read')) {
    throw new ProblemError(
      'insufficient_scope',
      `Matching a stored profile reads it, which needs the nature:read scope too; the key has ${request.apiKey.scopes.join(', ')}.`,
      { required_scope: 'nature:read' },
    );
  }
  const { natures, intelligences } = await profileById(request.env, id);
  // The profile route's schema holds the 19 names: its records are a ConstructProfile's.
  return { natures, intelligences } as ConstructProfile;
}

const occupationFields = ({ code, title, description, jobZone, riasec, related }: Occupation) => ({
  code,
  title,
  description,
  job_zone: jobZone,
  riasec,
  related,
});

const occupationJson = memoJson(occupationResource, occupationFields);

/**
 * An object's members as JSON, without its braces (`"a":1,"b":2`): one flat string, JSON.stringify's own. A page
 * is put together from such parts and written as one string, which is then copied part by part; parts that were
 * themselves put together (template strings) were walked piece by piece on every page, when fastify measured it and
 * again when Node wrote it.
 */
const membersJson = (value: object): string => JSON.stringify(value).slice(1, -1);

/**
 * A career's JSON is its own fields, then its occupation's and profile's, each part made once: the own fields per
 * career asked for (escaping them on every page was a twentieth of a search's CPU in the server), the rest per
 * occupation (kept per career, they came to some 56 MB for O*NET's 53,767 titles).
 */
const ownFields = memo(({ id, title, titleKind }: Career) => membersJson({ id, object: 'career', title, title_kind: titleKind }));

const occupationPart = (index: CareersIndex, career: Career): string => occupationAndProfile(index.occupation(career.occupationCode)!);

const occupationAndProfile = memo((occupation: Occupation) =>
  membersJson({
    occupation: occupationResource.parse(occupationFields(occupation)),
    profile: careerResource.shape.profile.parse(occupation.profile),
  }),
);

/** The titles a match shows of each occupation, made once per index. */
const titlesJson = memo((index: CareersIndex) =>
  memoJson(z.array(titleRef).max(TITLES_PER_MATCH), (occupation: Occupation) =>
    index
      .titlesOf(occupation.code)
      .slice(0, TITLES_PER_MATCH)
      .map(({ id, title, titleKind }) => ({ id, title, title_kind: titleKind })),
  ),
);

/** A match: its occupation's parts made once; the fit and the explanation are the matcher's, numbers in 0..1. */
function matchJson(index: CareersIndex, { occupation, fit, explanation }: OccupationMatch): string {
  return `{"object":"career_match","occupation":${occupationJson(occupation)},"titles":${titlesJson(index)(occupation)},"fit":${JSON.stringify(fit)},"explanation":${JSON.stringify(explanation)}}`;
}
