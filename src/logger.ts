import { type DestinationStream, type Logger, pino } from 'pino';

/**
 * Paths whose values never reach a log line: credentials in headers, raw keys, webhook secrets.
 * Fastify's request serializer logs no headers; these guard anything that logs a request or key whole.
 */
const redact = {
  paths: [
    'req.headers.authorization',
    'headers.authorization',
    'authorization',
    '*.authorization',
    'key',
    '*.key',
    'raw_key',
    'secret',
    '*.secret',
    'client_secret',
    '*.client_secret',
    'headers["nature-client-secret"]',
    'req.headers["nature-client-secret"]',
  ],
  censor: '[redacted]',
};

/**
 * A request as logged: method and path only. Query strings can carry personal data (an external id
 * filter) or a key pasted where it does not belong, so they never reach a log line.
 */
function requestSerializer(request: { method?: string; url?: string; id?: string }) {
  return { method: request.method, url: request.url?.split('?')[0] };
}

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact, serializers: { req: requestSerializer, err: pino.stdSerializers.err } }, destination);
}
