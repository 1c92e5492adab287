import type { Client, ClientPathsWithMethod, MaybeOptionalInit, MethodResponse } from 'openapi-fetch';
import type { paths } from './generated/openapi.js';

/**
 * Types derived from the generated document by path and status only, never by operationId or schema
 * name, so that renaming an operation or a component in the document changes nothing here.
 */
export type { paths };
export type RawClient = Client<paths>;
type Method = 'get' | 'post' | 'patch' | 'delete';
type Values<T> = T[keyof T];

export type PathsWith<M extends Method> = ClientPathsWithMethod<RawClient, M>;

/** The 2xx body of a route, as `GET('/v1/nature/subjects/{id}')` resolves. */
export type ResponseOf<M extends Method, P extends PathsWith<M>> = MethodResponse<RawClient, M, P>;

/** What a route takes (`params`, `body`), as openapi-fetch defines it. */
export type InitOf<M extends Method, P extends PathsWith<M>> = MaybeOptionalInit<paths[P], M>;

/** The init argument: optional when the route needs neither parameters nor a body. */
export type InitArgs<Init> = [RequiredKeys<Init>] extends [never]
  ? [init?: Init & { [key: string]: unknown }]
  : [init: Init & { [key: string]: unknown }];
type RequiredKeys<T> = Values<{ [K in keyof T]-?: object extends Pick<T, K> ? never : K }>;

type Operation = Values<{ [P in keyof paths]: Values<{ [M in Method]: paths[P][M] }> }>;
type ErrorBodies<R> = Values<{
  [S in keyof R]: `${S & number}` extends `4${string}` | `5${string}` ? (R[S] extends { content: infer C } ? Values<C> : never) : never;
}>;

/** Every error body the document describes, on any route: the RFC 9457 problem. */
export type Problem = Operation extends infer O ? (O extends { responses: infer R } ? ErrorBodies<R> : never) : never;
export type ProblemCode = Problem extends { code: infer C } ? C : never;

type EventAnswer = ResponseOf<'get', '/v1/nature/events/{id}'>;
type EventType = EventAnswer['type'];
type EventData = EventAnswer['data'];
/**
 * What an event of type T carries. The document gives `data` as a union without saying which type carries which:
 * situational.* the situational assessment's `id`, `subject_id` and `status`; nature.subject.* the subject's id alone;
 * nature.assessment.started, .abandoned and .expired the assessment's and subject's ids (and its language, expiry or
 * reason); nature.assessment.completed and nature.profile.updated the profile's, assessment's and subject's ids.
 */
type DataOf<T extends EventType> = T extends `situational.${string}`
  ? Extract<EventData, { status: unknown }>
  : T extends `nature.subject.${string}`
    ? Exclude<EventData, { assessment_id: unknown } | { status: unknown }>
    : T extends 'nature.assessment.started' | 'nature.assessment.abandoned' | 'nature.assessment.expired'
      ? Exclude<Extract<EventData, { assessment_id: unknown }>, { profile_id: unknown }>
      : Extract<EventData, { profile_id: unknown }>;

/**
 * An event, as `GET /v1/nature/events/{id}` answers and as a webhook delivers it: a union by `type`, so that
 * comparing `type` narrows `data` (`event.data.profile_id` after `event.type === 'nature.assessment.completed'`).
 */
export type NatureEvent = Values<{ [T in EventType]: Omit<EventAnswer, 'type' | 'data'> & { type: T; data: DataOf<T> } }>;
