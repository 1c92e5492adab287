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
  ],
  censor: '[redacted]',
};

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino({ level, redact }, destination);
}
