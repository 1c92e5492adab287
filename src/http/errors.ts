import { type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ErrorCode } from '@modelcontextprotocol/sdk/types.js';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { hasZodFastifySchemaValidationErrors } from 'fastify-type-provider-zod';
import FindMyWay from 'find-my-way';
import type { Logger } from 'pino';
import { DomainError } from '../domain/errors.js';
import { newId } from '../domain/ids.js';
import { SubjectErasedError } from '../ports/data-keys.js';
import { StreamDeletedError } from '../ports/event-store.js';
import { jsonRpcError } from './json-rpc-errors.js';
import { requestOrigin } from './origin.js';
import { type FieldError, type ProblemCode, ProblemError, problemBody, problemCodes } from './problem.js';
import { requestParts } from './validation.js';

const fastifyCodes: Record<string, ProblemCode> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'unsupported_media_type',
  FST_ERR_CTP_BODY_TOO_LARGE: 'payload_too_large',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_JSON_BODY: 'invalid_json',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'invalid_json',
};

const UNLAUNCHED_PRODUCT = /^\/v1\/content(\/|$)/;
const METHODS = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'] as const;

/**
 * Every failure, ours or fastify's, becomes one problem+json body with the request id. Unknown routes
 * answer 404, or 405 with Allow when the path exists for another method. `publicUrl`: NATURE_PUBLIC_URL.
 */
export function registerErrorHandling(app: FastifyInstance, unavailable: (error: unknown) => boolean, publicUrl: string | undefined): void {
  const routes = FindMyWay();
  app.addHook('onRoute', (route) => {
    for (const method of [route.method].flat()) {
      if (METHODS.includes(method as (typeof METHODS)[number])) routes.on(method as (typeof METHODS)[number], route.url, () => undefined);
    }
  });

  const sendProblem = problemSender(publicUrl);
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    if (path.length > 1 && path.endsWith('/')) {
      return sendProblem(
        reply,
        request,
        new ProblemError('not_found', `No route ${request.method} ${path}: paths have no empty segment and no trailing slash.`),
      );
    }
    if (UNLAUNCHED_PRODUCT.test(path)) {
      return sendProblem(reply, request, new ProblemError('product_not_available', 'This product is not available at v1.'));
    }
    const allowed = METHODS.filter((method) => routes.find(method, path) !== null);
    if (allowed.length > 0) {
      return sendProblem(
        reply,
        request,
        new ProblemError(
          'method_not_allowed',
          `${request.method} is not allowed here; use ${allowed.join(', ')}.`,
          {},
          { allow: allowed.join(', ') },
        ),
      );
    }
    return sendProblem(reply, request, new ProblemError('not_found', `No route ${request.method} ${path}.`));
  });

  app.setErrorHandler((error: FastifyError, request, reply) => sendProblem(reply, request, toProblem(error, request, unavailable)));
}

/** What an error means for the caller, as a problem: the one mapping of domain, store and framework errors (the dashboard's pages use it too). */
export function toProblem(error: FastifyError, request: FastifyRequest, unavailable: (error: unknown) => boolean): ProblemError {
  // A closed assessment's client secret is refused whatever else the request got wrong (its key, its body): only
  // the replay of its own stored answer (no error) or a wait while that answer is still being made gets through.
  const refusal = request.closedSecretRefusal;
  if (refusal !== null && !(error instanceof ProblemError && error.code === 'idempotency_key_in_use')) return refusal;
  if (error instanceof ProblemError) return error;
  if (error instanceof DomainError) return new ProblemError(error.code, error.message, error.details);
  // A write that met the subject's erasure half-way (its data key already destroyed).
  if (error instanceof SubjectErasedError)
    return new ProblemError('subject_erased', `The subject ${error.subjectId} was erased.`, { subject_id: error.subjectId });
  // An operator deleted the stream for good in EventStoreDB (a tombstone): nothing of it can be read or changed.
  if (error instanceof StreamDeletedError)
    return new ProblemError(
      'not_found',
      'This resource was deleted from the event log by an operator; it can no longer be read or changed.',
    );
  if (hasZodFastifySchemaValidationErrors(error)) {
    const where = requestParts[(error.validationContext ?? 'body') as keyof typeof requestParts] ?? 'body';
    // validation.ts made each item a field error: its message names the field.
    const errors = error.validation.map(
      (issue): FieldError => ({ path: issue.instancePath, in: where, message: issue.message ?? 'Invalid.' }),
    );
    return new ProblemError(
      'validation_failed',
      `The request ${where === 'body' ? 'body' : where} has ${errors.length} invalid field(s).`,
      { errors },
    );
  }
  const code = error.code ? fastifyCodes[error.code] : undefined;
  if (code) return new ProblemError(code, detailFor(code, error));
  // The body stream broke off (client gone, bad chunked framing): the client's fault, nothing to report.
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    request.log.info({ code: error.code, reason: error.message }, 'request body could not be read');
    return new ProblemError('malformed_request', 'The request body could not be read: it ended early or its framing is broken.');
  }
  // A backend that does not answer now (a failover, an outage): the caller retries, with the same Idempotency-Key.
  if (unavailable(error)) {
    request.log.warn({ err: error }, 'a backend did not answer');
    return new ProblemError(
      'service_unavailable',
      'A backend of the service does not answer right now; retry shortly with the same Idempotency-Key.',
      {},
      { 'retry-after': '1' },
    );
  }
  request.log.error({ err: error }, 'unhandled error');
  return new ProblemError('internal_error', 'Something went wrong on our side. Retry later; quote the request_id if it persists.');
}

function detailFor(code: ProblemCode, error: FastifyError): string {
  switch (code) {
    case 'unsupported_media_type':
      return 'Send the body as JSON with Content-Type: application/json.';
    case 'payload_too_large':
      return 'The request body is larger than 64 KiB.';
    default:
      return `The request body is not valid JSON: ${error.message}`;
  }
}

/** Answers with the problem; sets request-id too, since fastify's own errors can come before any hook. */
function problemSender(publicUrl: string | undefined) {
  return (reply: FastifyReply, request: FastifyRequest, problem: ProblemError): FastifyReply => {
    const body = problemBody(problem.code, problem.detail, request.id, requestOrigin(publicUrl, request.raw) ?? '', problem.extra);
    // For the request log (request-log.ts), which keeps the problem of every refused request.
    request.problemSent = body;
    // A body a JSON-RPC endpoint cannot read as a message is the protocol's parse error, the problem its data.
    if (problem.code === 'invalid_json' && request.routeOptions.config.jsonRpc === true) {
      return reply
        .code(body.status)
        .headers({ ...problem.headers, 'request-id': request.id })
        .type('application/json')
        .send(jsonRpcError(null, ErrorCode.ParseError, body.detail, body));
    }
    return reply
      .code(body.status)
      .headers({ ...problem.headers, 'request-id': request.id })
      .type('application/problem+json')
      .send(body);
  };
}

/** Fastify's errors before routing (a URL that cannot be decoded), answered like every other error. */
export function frameworkError(publicUrl: string | undefined) {
  const sendProblem = problemSender(publicUrl);
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    const problem =
      error.code === 'FST_ERR_BAD_URL'
        ? new ProblemError('not_found', 'The URL could not be decoded.')
        : new ProblemError('validation_failed', 'The request could not be read.');
    sendProblem(reply, request, problem);
  };
}

const clientProblems: Record<string, { code: ProblemCode; detail: string }> = {
  HPE_HEADER_OVERFLOW: { code: 'header_fields_too_large', detail: 'The request headers are larger than 16 KiB.' },
  ERR_HTTP_REQUEST_TIMEOUT: { code: 'request_timeout', detail: 'The request was not received in time.' },
};

/**
 * Requests the HTTP parser refuses before fastify sees them (oversized headers, a malformed request line,
 * a timeout) get a problem+json body with a request id like every other error, then the connection closes.
 */
export function clientErrorHandler(logger: Logger, publicUrl: string | undefined) {
  return (error: NodeJS.ErrnoException, socket: Socket): void => {
    if (error.code === 'ECONNRESET' || socket.destroyed) return;
    // The request was answered already (refused by the gate, say, for a framing the parser only fails on later):
    // a second answer on the socket would be read as the reply to a next request. Its own answer closes it.
    if ((socket as Socket & { _httpMessage?: ServerResponse })._httpMessage?.headersSent) {
      socket.end();
      return;
    }
    const { code, detail } = clientProblems[error.code ?? ''] ?? {
      code: 'malformed_request' as const,
      detail: 'The request is not valid HTTP/1.1.',
    };
    const requestId = newId('req');
    logger.info({ reqId: requestId, code: error.code }, 'refused a malformed request');
    if (socket.writable) {
      // The parser kept no Host to trust: the link is relative unless the public URL is set.
      const body = JSON.stringify(problemBody(code, detail, requestId, publicUrl ?? ''));
      const status = problemCodes[code].status;
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/problem+json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          // Written on the socket, past fastify and helmet: the one header helmet would add that matters here.
          `request-id: ${requestId}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy();
  };
}
