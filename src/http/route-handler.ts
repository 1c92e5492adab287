import type {
  ContextConfigDefault,
  FastifyReply,
  FastifyRequest,
  FastifySchema,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
  RouteGenericInterface,
} from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';

/** The app's clock, handed to the handlers that stamp or judge a time: a test's app runs on its own. */
export type Clock = () => Date;

/** What a named handler receives: the request typed by its route's zod schema, as fastify types an inline handler's. */
export type RouteRequest<Schema extends FastifySchema> = FastifyRequest<
  RouteGenericInterface,
  RawServerDefault,
  RawRequestDefaultExpression,
  Schema,
  ZodTypeProvider
>;

/** The reply of a named handler, whose `send` takes only what its route's response schema declares. */
export type RouteReply<Schema extends FastifySchema> = FastifyReply<
  RouteGenericInterface,
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  ContextConfigDefault,
  Schema,
  ZodTypeProvider
>;
