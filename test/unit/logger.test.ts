import { Writable } from 'node:stream';
import { describe, expect, it, vi } from 'vitest';
import { createLogger, LazyChildLogger, requestLineWriter } from '../../src/support/logger.js';

/** The log lines a logger writes, parsed. */
function capture() {
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      lines.push(JSON.parse(String(chunk)));
      done();
    },
  });
  return { logger: createLogger('info', sink), lines };
}

describe('the logger', () => {
  it('never writes a credential, wherever a log call puts it', () => {
    const { logger, lines } = capture();
    const secrets = ['Bearer test_sk_Secret1', 'asm_01X_secret_Secret2', 'whsec_Secret3', 'test_pk_Secret4'];
    logger.info(
      { headers: { authorization: secrets[0], 'nature-client-secret': secrets[1], accept: 'application/json' } },
      'a request whole',
    );
    logger.info({ req: { headers: { authorization: secrets[0], 'nature-client-secret': secrets[1] } } }, 'nested');
    logger.info({ endpoint: { secret: secrets[2] }, client_secret: secrets[1], key: secrets[3] }, 'resources');
    const written = JSON.stringify(lines);
    for (const secret of secrets) expect(written).not.toContain(secret);
    expect(lines[0]!.headers).toEqual({ authorization: '[redacted]', 'nature-client-secret': '[redacted]', accept: 'application/json' });
    expect(lines[2]).toMatchObject({ endpoint: { secret: '[redacted]' }, client_secret: '[redacted]', key: '[redacted]' });
  });

  it('logs a request as its method and path: no query string, no headers', () => {
    const { logger, lines } = capture();
    logger.info(
      {
        req: {
          method: 'GET',
          url: '/v1/nature/subjects?external_subject_id=emp-0042',
          headers: { authorization: 'Bearer x' },
          id: 'req_1',
        },
      },
      'in',
    );
    expect(lines[0]!.req).toEqual({ method: 'GET', url: '/v1/nature/subjects' });
  });

  it('writes the request line as logger.info would, with its query dropped and a pasted key redacted', () => {
    vi.useFakeTimers({ now: new Date('2026-11-28T17:00:00.123Z') });
    try {
      const written: string[] = [];
      const logger = createLogger('info', { write: (line: string) => void written.push(line) });
      const pasted = `live_sk_${'Q7'.repeat(20)}`;
      const line = {
        reqId: 'req_01KQ"quoted',
        method: 'GET',
        url: `/v1/nature/subjects/${pasted}/é\\"?external_subject_id=emp-0042`,
        statusCode: 404,
        responseTime: 1.5,
      };
      requestLineWriter(logger)(line);
      logger.info(
        {
          reqId: line.reqId,
          req: { method: line.method, url: line.url },
          res: { statusCode: line.statusCode },
          responseTime: line.responseTime,
        },
        'request completed',
      );
      expect(written[0]).toBe(written[1]);
      expect(JSON.parse(written[0]!)).toMatchObject({
        level: 30,
        time: Date.parse('2026-11-28T17:00:00.123Z'),
        reqId: line.reqId,
        req: { method: 'GET', url: '/v1/nature/subjects/live_sk_[redacted]/é\\"' },
        res: { statusCode: 404 },
        responseTime: 1.5,
        msg: 'request completed',
      });
    } finally {
      vi.useRealTimers();
    }
  });

  it('writes no request line below info level', () => {
    const written: string[] = [];
    const logger = createLogger('warn', { write: (line: string) => void written.push(line) });
    requestLineWriter(logger)({ reqId: 'req_1', method: 'GET', url: '/healthz', statusCode: 200, responseTime: 0.5 });
    expect(written).toEqual([]);
  });

  it("makes a request's logger only for a line at an enabled level, with the request id on each of its lines", () => {
    const { logger, lines } = capture();
    const child = vi.spyOn(logger, 'child');
    const requestLog = new LazyChildLogger(logger, { reqId: 'req_1' }, {});
    requestLog.debug({ detail: 1 }, 'below the level');
    expect(child).not.toHaveBeenCalled();
    expect(requestLog.level).toBe('info');
    requestLog.warn({ detail: 2 }, 'a warning');
    requestLog.info('a message');
    expect(child).toHaveBeenCalledTimes(1);
    requestLog.child({ part: 'x' }).error('nested');
    expect(lines).toEqual([
      expect.objectContaining({ level: 40, reqId: 'req_1', detail: 2, msg: 'a warning' }),
      expect.objectContaining({ level: 30, reqId: 'req_1', msg: 'a message' }),
      expect.objectContaining({ level: 50, reqId: 'req_1', part: 'x', msg: 'nested' }),
    ]);
  });
});
