import type { FastifySerializerCompiler } from 'fastify';

/** Answers that never change, as routes return them (frozen). */
const constants = new WeakSet<object>();

/** Marks `value` as an answer that never changes, frozen at every depth so it cannot: its bytes are made once. */
export function constantAnswer<T extends object>(value: T): T {
  constants.add(deepFreeze(value));
  return value;
}

function deepFreeze(value: object): object {
  for (const member of Object.values(value)) if (typeof member === 'object' && member !== null) deepFreeze(member);
  return Object.freeze(value);
}

/**
 * The routes' serializer, with a constant answer serialised (validated by the route's schema) on its first send
 * and kept as bytes. fastify sends bytes as they are: neither validated, serialised, measured (Content-Length)
 * nor encoded again on each request, which is most of what serving a constant costs.
 */
export function servingConstantsOnce<T>(compile: FastifySerializerCompiler<T>): FastifySerializerCompiler<T> {
  return (route) => {
    const serialize = compile(route);
    const bytes = new WeakMap<object, Buffer>();
    return (data: unknown) => {
      if (typeof data !== 'object' || data === null || !constants.has(data)) return serialize(data);
      let sent = bytes.get(data);
      if (sent === undefined) {
        sent = Buffer.from(serialize(data));
        bytes.set(data, sent);
      }
      // fastify's serializer type says string; its reply sends a Buffer as it sends a string (reply.js onSendEnd).
      return sent as unknown as string;
    };
  };
}
