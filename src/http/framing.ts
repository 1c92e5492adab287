import { isUtf8 } from 'node:buffer';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { newId } from '../domain/ids.js';
import { duplicateMember } from './duplicate-members.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-nesting.js';
import { requestOrigin } from './origin.js';
import { ProblemError, problemBody, problemCodes } from './problem.js';

/**
 * HTTP framing that fastify and Node would otherwise pass over or answer bare: an HTTP/1.1 request needs
 * exactly one Host (RFC 9112 §3.2), bodies are not content-encoded, a JSON body is UTF-8 (RFC 8259 §8.1: any
 * other charset it declares is refused, not guessed at) and nests at most MAX_JSON_DEPTH levels,
 * and an Expect other than 100-continue is refused as problem+json rather than with Node's empty 417 (the Host
 * check is the request gate's: checkHost).
 * `publicUrl`: NATURE_PUBLIC_URL, for that answer's links.
 */
export function registerFraming(app: FastifyInstance, publicUrl: string | undefined): void {
  app.addHook('preParsing', (request, _reply, payload, done) => {
    const coding = request.headers['content-encoding'];
    if (coding !== undefined && coding.trim().toLowerCase() !== 'identity') {
      return done(
        new ProblemError(
          'unsupported_media_type',
          `Content-Encoding ${JSON.stringify(coding)} is not supported: send the body uncompressed.`,
        ),
      );
    }
    done(null, payload);
  });

  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body: Buffer, done) => {
    const charset = charsetOf(request.headers['content-type'] ?? '');
    if (charset !== undefined && charset !== 'utf-8') {
      return done(
        new ProblemError(
          'unsupported_media_type',
          `A JSON body is UTF-8 (RFC 8259); charset=${charset} is not supported: send it as UTF-8, with no charset or charset=utf-8.`,
        ),
      );
    }
    if (body.length === 0) return done(new ProblemError('invalid_json', 'The request body is empty; send a JSON value.'));
    if (!isUtf8(body)) return done(new ProblemError('invalid_json', 'The request body is not valid UTF-8, as JSON must be.'));
    const text = body.toString('utf8');
    let value: unknown;
    try {
      // `__proto__` and `constructor` keys stay plain data: JSON.parse makes them own properties.
      value = JSON.parse(text);
    } catch (error) {
      return done(new ProblemError('invalid_json', `The request body is not valid JSON: ${(error as Error).message}`));
    }
    if (nestsDeeperThan(text, MAX_JSON_DEPTH)) {
      return done(
        new ProblemError(
          'invalid_json',
          `The request body nests arrays and objects more than ${MAX_JSON_DEPTH} levels deep: no request of this API needs more than ${MAX_JSON_DEPTH}.`,
        ),
      );
    }
    const duplicate = duplicateMember(text);
    if (duplicate !== undefined) {
      return done(
        new ProblemError(
          'invalid_json',
          `The request body names the member ${duplicate} twice: member names must be unique within an object.`,
        ),
      );
    }
    done(null, value);
  });

  const refuseExpectation = expectationRefuser(publicUrl);
  app.server.on('checkExpectation', refuseExpectation);
  // Node takes any Expect that merely contains "100-continue" for it; only the exact token is.
  app.server.on('checkContinue', (request, response) => {
    if (request.headers.expect?.trim().toLowerCase() !== '100-continue') return refuseExpectation(request, response);
    response.writeContinue();
    app.server.emit('request', request, response);
  });
}

/** Refuses a request without exactly one Host (HTTP/1.1; HTTP/1.0 may have none); run by the request gate. */
export function checkHost(request: FastifyRequest): void {
  const names = request.raw.rawHeaders;
  let hosts = 0;
  for (let index = 0; index < names.length; index += 2) {
    // The length first: lower-casing every header's name made a string per header on every request.
    const name = names[index]!;
    if (name.length === 4 && name.toLowerCase() === 'host') hosts += 1;
  }
  if (hosts > 1 || (hosts === 0 && request.raw.httpVersion === '1.1')) {
    throw new ProblemError('malformed_request', `An HTTP/1.1 request has exactly one Host header; this one has ${hosts}.`);
  }
}

/**
 * A request body's framing is Content-Length or a Transfer-Encoding whose last coding is chunked (RFC 9112 §6.1):
 * any other (`gzip` alone, `chunked, gzip`) leaves no way to tell where the body ends, which Node lets through
 * as a body that runs to the end of the connection. Refused before the route, and the connection closed.
 */
export function checkTransferEncoding(request: FastifyRequest): void {
  const codings = request.headers['transfer-encoding'];
  if (codings === undefined) return;
  const last = codings
    .slice(codings.lastIndexOf(',') + 1)
    .trim()
    .toLowerCase();
  if (last !== 'chunked') {
    throw new ProblemError(
      'malformed_request',
      `Transfer-Encoding ${JSON.stringify(codings)} does not end in chunked: send the body with Content-Length, or chunked (RFC 9112 §6.1).`,
      {},
      { connection: 'close' },
    );
  }
}

/** The charset parameter of a Content-Type, lower-cased and unquoted; undefined without one. */
function charsetOf(contentType: string): string | undefined {
  const match = /;\s*charset\s*=\s*("([^"]*)"|[^;\s]*)/i.exec(contentType);
  return match === null ? undefined : (match[2] ?? match[1]!).toLowerCase();
}

/** Node's own 417 has no body; this one is problem+json with a request id like every other error. */
function expectationRefuser(publicUrl: string | undefined) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    const requestId = newId('req');
    const detail = `Expect ${JSON.stringify(request.headers.expect)} is not supported; only 100-continue is.`;
    const body = JSON.stringify(problemBody('expectation_failed', detail, requestId, requestOrigin(publicUrl, request) ?? ''));
    response.writeHead(problemCodes.expectation_failed.status, {
      'content-type': 'application/problem+json',
      'content-length': Buffer.byteLength(body),
      'request-id': requestId,
      // Answered by Node before fastify (and helmet) see the request.
      'x-content-type-options': 'nosniff',
      connection: 'close',
    });
    response.end(body);
  };
}
