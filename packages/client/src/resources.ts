import type { NatureEvent, paths, ResponseOf } from './api.js';
import { type ListPath, type ListResult, listResult, type Page } from './pagination.js';

/** What any one call may set beyond the route's own parameters. */
export interface RequestOptions {
  /** How long one attempt may take, from sending to the last byte (default: the client's `timeoutMs`). */
  timeoutMs?: number;
  /** The Idempotency-Key of a POST or PATCH (default: a random UUID per call, kept by its retries). */
  idempotencyKey?: string;
  /** Cancels the call, retries included. */
  signal?: AbortSignal;
  /** More headers, e.g. `Nature-Client-Secret` for a call made with a publishable key. */
  headers?: Record<string, string>;
}

type Method = 'get' | 'post' | 'patch' | 'delete';
type Operation<M extends Method, P extends keyof paths> = paths[P][M];
/** The JSON body a route takes. */
export type BodyOf<M extends Method, P extends keyof paths> =
  Operation<M, P> extends {
    requestBody?: { content: { 'application/json': infer B } };
  }
    ? B
    : never;
/** The query parameters a GET route takes. */
export type QueryOf<P extends keyof paths> = Operation<'get', P> extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

type Init = { params?: { path?: Record<string, string>; query?: object }; body?: unknown };
/** The one untyped call underneath: the types are the resources' own, below. */
export type Send = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, init: Init, options?: RequestOptions) => Promise<unknown>;

const subjects = '/v1/nature/subjects';
const subject = '/v1/nature/subjects/{id}';
const audit = '/v1/nature/subjects/{id}/audit';
const items = '/v1/nature/items';
const assessments = '/v1/nature/subjects/{id}/assessments';
const assessment = '/v1/nature/subjects/{id}/assessments/{assessment_id}';
const assessmentLinks = '/v1/nature/subjects/{id}/assessment_links';
const assessmentLink = '/v1/nature/assessment_links/{id}';
const revokeLink = '/v1/nature/assessment_links/{id}/revoke';
const latestProfile = '/v1/nature/subjects/{id}/profile';
const profile = '/v1/nature/profiles/{id}';
const endpoints = '/v1/nature/webhook_endpoints';
const endpoint = '/v1/nature/webhook_endpoints/{id}';
const rotateSecret = '/v1/nature/webhook_endpoints/{id}/rotate_secret';
const testEvent = '/v1/nature/webhook_endpoints/{id}/test';
const deliveries = '/v1/nature/webhook_endpoints/{id}/deliveries';
const replayFailed = '/v1/nature/webhook_endpoints/{id}/replay_failed';
const events = '/v1/nature/events';
const event = '/v1/nature/events/{id}';
const redeliver = '/v1/nature/events/{id}/redeliver';
const usage = '/v1/nature/usage';
const careers = '/v1/careers';
const career = '/v1/careers/{id}';
const careerMatches = '/v1/careers/matches';
const situationalAssessments = '/v1/situational/assessments';
const situationalAssessment = '/v1/situational/assessments/{id}';

type Paged<P extends ListPath> = ListResult<ResponseOf<'get', P> & Page>;
/** A page of events, each narrowed by its `type` (NatureEvent). */
type EventsPage = Omit<ResponseOf<'get', typeof events>, 'data'> & { data: NatureEvent[] };

/**
 * The API by resource: `nature.subjects.create({ … })`. Each call resolves with the 2xx body, typed by the
 * OpenAPI document, or rejects with a NatureApiError (or a NatureTimeoutError). A `list` resolves with its
 * first page and, iterated with `for await`, yields every item of every page.
 */
export interface NatureResources {
  subjects: {
    create(body: BodyOf<'post', typeof subjects>, options?: RequestOptions): Promise<ResponseOf<'post', typeof subjects>>;
    get(id: string, options?: RequestOptions): Promise<ResponseOf<'get', typeof subject>>;
    list(query?: QueryOf<typeof subjects>, options?: RequestOptions): Paged<typeof subjects>;
    /** Erases the subject's personal data for good (GDPR Art. 17): answers 200 once, then 410 subject_erased. */
    erase(id: string, options?: RequestOptions): Promise<ResponseOf<'delete', typeof subject>>;
    /** Who read or changed the subject, and when. */
    audit(id: string, query?: QueryOf<typeof audit>, options?: RequestOptions): Paged<typeof audit>;
  };
  items: {
    /** The 76 statements and the five answer labels, in English or (`{ language: 'fr' }`) French. */
    list(query?: QueryOf<typeof items>, options?: RequestOptions): Promise<ResponseOf<'get', typeof items>>;
  };
  assessments: {
    start(
      subjectId: string,
      body?: BodyOf<'post', typeof assessments>,
      options?: RequestOptions,
    ): Promise<ResponseOf<'post', typeof assessments>>;
    list(subjectId: string, query?: QueryOf<typeof assessments>, options?: RequestOptions): Paged<typeof assessments>;
    get(subjectId: string, assessmentId: string, options?: RequestOptions): Promise<ResponseOf<'get', typeof assessment>>;
    /** One batch of answers; the batch that completes the 76 starts scoring. */
    submit(
      subjectId: string,
      assessmentId: string,
      body: BodyOf<'patch', typeof assessment>,
      options?: RequestOptions,
    ): Promise<ResponseOf<'patch', typeof assessment>>;
    abandon(subjectId: string, assessmentId: string, options?: RequestOptions): Promise<ResponseOf<'delete', typeof assessment>>;
  };
  /** Hosted assessment links: a page on the service where the subject answers, for callers who build none. */
  assessmentLinks: {
    /** The answer carries the link's `url`: the only time it is shown. */
    create(
      subjectId: string,
      body?: BodyOf<'post', typeof assessmentLinks>,
      options?: RequestOptions,
    ): Promise<ResponseOf<'post', typeof assessmentLinks>>;
    list(subjectId: string, query?: QueryOf<typeof assessmentLinks>, options?: RequestOptions): Paged<typeof assessmentLinks>;
    get(id: string, options?: RequestOptions): Promise<ResponseOf<'get', typeof assessmentLink>>;
    /** Its page then says the link is no longer valid; revoking a revoked link changes nothing. */
    revoke(id: string, options?: RequestOptions): Promise<ResponseOf<'post', typeof revokeLink>>;
  };
  profiles: {
    /** The subject's profile from its latest completed assessment. */
    latest(subjectId: string, options?: RequestOptions): Promise<ResponseOf<'get', typeof latestProfile>>;
    get(id: string, options?: RequestOptions): Promise<ResponseOf<'get', typeof profile>>;
  };
  webhookEndpoints: {
    /** The answer carries the signing secret: the only time it is shown. */
    create(body: BodyOf<'post', typeof endpoints>, options?: RequestOptions): Promise<ResponseOf<'post', typeof endpoints>>;
    list(query?: QueryOf<typeof endpoints>, options?: RequestOptions): Paged<typeof endpoints>;
    get(id: string, options?: RequestOptions): Promise<ResponseOf<'get', typeof endpoint>>;
    update(id: string, body: BodyOf<'patch', typeof endpoint>, options?: RequestOptions): Promise<ResponseOf<'patch', typeof endpoint>>;
    delete(id: string, options?: RequestOptions): Promise<ResponseOf<'delete', typeof endpoint>>;
    /** A new secret; the old one keeps signing alongside it for the overlap asked for. */
    rotateSecret(
      id: string,
      body?: BodyOf<'post', typeof rotateSecret>,
      options?: RequestOptions,
    ): Promise<ResponseOf<'post', typeof rotateSecret>>;
    sendTest(id: string, body?: BodyOf<'post', typeof testEvent>, options?: RequestOptions): Promise<ResponseOf<'post', typeof testEvent>>;
    deliveries(id: string, query?: QueryOf<typeof deliveries>, options?: RequestOptions): Paged<typeof deliveries>;
    /** Queues again every event whose latest attempt on the endpoint failed since `body.since` (at most 1,000 a call). */
    replayFailed(
      id: string,
      body: BodyOf<'post', typeof replayFailed>,
      options?: RequestOptions,
    ): Promise<ResponseOf<'post', typeof replayFailed>>;
  };
  events: {
    list(query?: QueryOf<typeof events>, options?: RequestOptions): ListResult<EventsPage>;
    get(id: string, options?: RequestOptions): Promise<NatureEvent>;
    redeliver(id: string, body?: BodyOf<'post', typeof redeliver>, options?: RequestOptions): Promise<ResponseOf<'post', typeof redeliver>>;
  };
  usage: {
    /** Completed assessments per key and UTC day or month. */
    get(query?: QueryOf<typeof usage>, options?: RequestOptions): Promise<ResponseOf<'get', typeof usage>>;
  };
  /** O*NET careers (scope careers:read): every answer names the catalogue it came from in `catalogue_version`. */
  careers: {
    /** Careers by words of their titles (`query`), job zones (`job_zone: '3,4'`) and occupation code. */
    search(query?: QueryOf<typeof careers>, options?: RequestOptions): Paged<typeof careers>;
    get(id: string, options?: RequestOptions): Promise<ResponseOf<'get', typeof career>>;
    /** Occupations by fit to a stored profile (`profile_id`, which needs nature:read too) or to scores given inline (`profile`). */
    match(body: BodyOf<'post', typeof careerMatches>, options?: RequestOptions): Promise<ResponseOf<'post', typeof careerMatches>>;
  };
  /**
   * How a subject's latest completed profile meets a situation told in free text (scopes situational:read and
   * situational:write; sk keys only).
   */
  situational: {
    /**
     * Answers at once (202) with a `pending` assessment, read within seconds: `get` it until its status is
     * `completed` or `failed`, or listen for situational.assessment.completed. A subject with no completed
     * assessment yet rejects with 409 profile_required.
     */
    create(
      body: BodyOf<'post', typeof situationalAssessments>,
      options?: RequestOptions,
    ): Promise<ResponseOf<'post', typeof situationalAssessments>>;
    get(id: string, options?: RequestOptions): Promise<ResponseOf<'get', typeof situationalAssessment>>;
    /** Newest first; one subject's with `subject_id`. */
    list(query?: QueryOf<typeof situationalAssessments>, options?: RequestOptions): Paged<typeof situationalAssessments>;
  };
}

/**
 * The resources over `send`. The paths are checked against the document by the types above; which method
 * and parameters each member sends is checked by the tests against the server (send is untyped).
 */
export function natureResources(send: Send): NatureResources {
  const path = (id: string, more: Record<string, string> = {}) => ({ path: { id, ...more } });
  const list = (route: string, pathParams: Record<string, string> | undefined, query: object | undefined, options?: RequestOptions) =>
    listResult(
      (pageQuery) =>
        send('GET', route, { params: { ...(pathParams && { path: pathParams }), query: pageQuery } }, options) as Promise<Page>,
      { ...query },
    );
  return {
    subjects: {
      create: (body, options) => send('POST', subjects, { body }, options),
      get: (id, options) => send('GET', subject, { params: path(id) }, options),
      list: (query, options) => list(subjects, undefined, query, options),
      erase: (id, options) => send('DELETE', subject, { params: path(id) }, options),
      audit: (id, query, options) => list(audit, { id }, query, options),
    },
    items: {
      list: (query, options) => send('GET', items, { params: { query: { ...query } } }, options),
    },
    assessments: {
      start: (subjectId, body, options) => send('POST', assessments, { params: path(subjectId), body: body ?? {} }, options),
      list: (subjectId, query, options) => list(assessments, { id: subjectId }, query, options),
      get: (subjectId, assessmentId, options) =>
        send('GET', assessment, { params: path(subjectId, { assessment_id: assessmentId }) }, options),
      submit: (subjectId, assessmentId, body, options) =>
        send('PATCH', assessment, { params: path(subjectId, { assessment_id: assessmentId }), body }, options),
      abandon: (subjectId, assessmentId, options) =>
        send('DELETE', assessment, { params: path(subjectId, { assessment_id: assessmentId }) }, options),
    },
    assessmentLinks: {
      create: (subjectId, body, options) => send('POST', assessmentLinks, { params: path(subjectId), body: body ?? {} }, options),
      list: (subjectId, query, options) => list(assessmentLinks, { id: subjectId }, query, options),
      get: (id, options) => send('GET', assessmentLink, { params: path(id) }, options),
      revoke: (id, options) => send('POST', revokeLink, { params: path(id), body: {} }, options),
    },
    profiles: {
      latest: (subjectId, options) => send('GET', latestProfile, { params: path(subjectId) }, options),
      get: (id, options) => send('GET', profile, { params: path(id) }, options),
    },
    webhookEndpoints: {
      create: (body, options) => send('POST', endpoints, { body }, options),
      list: (query, options) => list(endpoints, undefined, query, options),
      get: (id, options) => send('GET', endpoint, { params: path(id) }, options),
      update: (id, body, options) => send('PATCH', endpoint, { params: path(id), body }, options),
      delete: (id, options) => send('DELETE', endpoint, { params: path(id) }, options),
      rotateSecret: (id, body, options) => send('POST', rotateSecret, { params: path(id), body: body ?? {} }, options),
      sendTest: (id, body, options) => send('POST', testEvent, { params: path(id), body: body ?? {} }, options),
      deliveries: (id, query, options) => list(deliveries, { id }, query, options),
      replayFailed: (id, body, options) => send('POST', replayFailed, { params: path(id), body }, options),
    },
    events: {
      list: (query, options) => list(events, undefined, query, options),
      get: (id, options) => send('GET', event, { params: path(id) }, options),
      redeliver: (id, body, options) => send('POST', redeliver, { params: path(id), body: body ?? {} }, options),
    },
    usage: {
      get: (query, options) => send('GET', usage, { params: { query: { ...query } } }, options),
    },
    careers: {
      search: (query, options) => list(careers, undefined, query, options),
      get: (id, options) => send('GET', career, { params: path(id) }, options),
      match: (body, options) => send('POST', careerMatches, { body }, options),
    },
    situational: {
      create: (body, options) => send('POST', situationalAssessments, { body }, options),
      get: (id, options) => send('GET', situationalAssessment, { params: path(id) }, options),
      list: (query, options) => list(situationalAssessments, undefined, query, options),
    },
  } as NatureResources;
}
