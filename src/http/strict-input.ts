import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { fieldError } from './field-errors.js';
import { type FieldError, ProblemError } from './problem.js';

type Where = FieldError['in'];

/**
 * Input every route refuses the same way, before its own schema: an empty path segment, unknown query
 * parameters (a route without a query schema takes none), a query parameter given twice, and strings that
 * are not well-formed Unicode (lone surrogates) anywhere in the path, query or body, keys included.
 */
export function registerStrictInput(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    // The dashboard's pages read their own few query parameters, and answer a person in a page, not a problem.
    if (route.url.startsWith('/v1/docs') || route.url.startsWith('/dashboard')) return;
    route.schema = { ...route.schema, querystring: route.schema?.querystring ?? z.strictObject({}) };
  });

  // A callback, not an async function: this runs on every request, and a promise per request shows in its CPU.
  app.addHook('preValidation', (request, _reply, done) => {
    const errors: FieldError[] = request.url.includes('?') ? badlyEncoded(request.url) : [];
    const query = request.query as Record<string, unknown>;
    for (const name in query) {
      if (!Object.hasOwn(query, name)) continue;
      const value = query[name];
      if (Array.isArray(value)) errors.push(fieldError('query', [name], `is given ${value.length} times; give it once.`));
    }
    illFormed(request.params, 'path', errors);
    illFormed(query, 'query', errors);
    illFormed(request.body, 'body', errors);
    if (errors.length === 0) return done();
    done(new ProblemError('validation_failed', `The request has ${errors.length} invalid field(s).`, { errors: errors.slice(0, 20) }));
  });
}

/**
 * A trailing slash can match a route with an empty last parameter: it names nothing, key or no key. Run by the
 * request gate, before authentication.
 */
export function refuseEmptySegment(request: FastifyRequest): void {
  const params = request.params as Record<string, string>;
  for (const name in params) {
    if (params[name] === '') {
      throw new ProblemError(
        'not_found',
        `No route ${request.method} ${request.url.split('?')[0]}: paths have no empty segment and no trailing slash.`,
      );
    }
  }
}

/** Query parameters whose percent-encoding is not UTF-8 (the parser would quietly turn them into U+FFFD). */
function badlyEncoded(url: string): FieldError[] {
  const query = url.slice(url.indexOf('?') + 1 || url.length);
  // Only an escape can be badly encoded: most queries have none, and decoding every part showed in a search's CPU.
  if (!query.includes('%')) return [];
  return query.split('&').flatMap((pair) => {
    const decode = (part: string) => decodeURIComponent(part.replaceAll('+', ' '));
    const [name = '', value = ''] = pair.split('=', 2);
    try {
      decode(name);
      decode(value);
      return [];
    } catch {
      return [fieldError('query', [name], 'is not valid percent-encoded UTF-8.')];
    }
  });
}

/** A key on the way down, linked to the one above it: a path is only spelt out for a field found wanting. */
interface Step {
  key: string | number;
  above: Step | undefined;
}

function pathTo(step: Step | undefined): (string | number)[] {
  const path: (string | number)[] = [];
  for (let at = step; at !== undefined; at = at.above) path.push(at.key);
  return path.reverse();
}

/**
 * Adds to `found` every string (value or key) with a lone surrogate, up to 20 of `input`; walked without recursion,
 * so any nesting depth is safe. Nothing is allocated for an input without a member (most GETs' path, query and body).
 */
function illFormed(input: unknown, where: Where, found: FieldError[]): void {
  if (typeof input !== 'string' && !hasMember(input)) return;
  const limit = found.length + 20;
  const pending: [unknown, Step | undefined][] = [[input, undefined]];
  while (pending.length > 0 && found.length < limit) {
    const [value, step] = pending.pop()!;
    if (typeof value === 'string') {
      if (!value.isWellFormed()) found.push(fieldError(where, pathTo(step), 'is not well-formed Unicode: it holds a lone surrogate.'));
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) {
        const at = { key: Array.isArray(value) ? Number(key) : key, above: step };
        if (!key.isWellFormed())
          found.push(fieldError(where, pathTo(at), 'has a name that is not well-formed Unicode: it holds a lone surrogate.'));
        pending.push([item, at]);
      }
    }
  }
}

function hasMember(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return false;
  for (const key in value) if (Object.hasOwn(value, key)) return true;
  return false;
}
