import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openTestApp, type TestApp } from '../support/test-app.js';

/** What a raw connection received by the time the server closed it. */
interface Closed {
  status: number;
  headers: Record<string, string>;
  body: string;
}

describe('server time-outs, against a client that trickles one byte a second', () => {
  let t: TestApp;
  let port: number;
  let key: string;
  /** Lets the slow route answer. */
  let release: () => void = () => undefined;
  let slowStarted: Promise<void>;
  let startSlow: () => void = () => undefined;

  beforeAll(async () => {
    t = await openTestApp({
      NATURE_HEADERS_TIMEOUT_MS: '1000',
      NATURE_REQUEST_TIMEOUT_MS: '2000',
      NATURE_KEEP_ALIVE_TIMEOUT_MS: '1000',
      NATURE_CONNECTION_TIMEOUT_MS: '60000',
    });
    key = (await t.mint('test', 'sk')).raw;
    slowStarted = new Promise((resolve) => {
      startSlow = resolve;
    });
    // A handler that takes as long as the test says: a request received whole may take longer than the request timeout.
    t.app.get('/v1/test-slow', async () => {
      startSlow();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return { done: true };
    });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    port = (t.app.server.address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  /** A connection whose answer is read until the server closes it. */
  function open(): { socket: Socket; closed: Promise<Closed> } {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    const closed = new Promise<Closed>((resolve) =>
      socket.once('close', () => {
        const [head = '', body = ''] = text.split('\r\n\r\n');
        const [statusLine = '', ...lines] = head.split('\r\n');
        const headers = Object.fromEntries(
          lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]),
        );
        resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
      }),
    );
    return { socket, closed };
  }

  /** Writes `text` (then more of its last byte) one byte a second until the server closes the connection. */
  function trickle(socket: Socket, text: string): void {
    let at = 0;
    const next = () => {
      if (socket.destroyed) return;
      socket.write(text[Math.min(at++, text.length - 1)]!);
      setTimeout(next, 1000);
    };
    next();
  }

  const expectTimedOut = ({ status, headers, body }: Closed) => {
    expect({ status, type: headers['content-type'] }).toEqual({ status: 408, type: 'application/problem+json' });
    expect(JSON.parse(body)).toMatchObject({ status: 408, code: 'request_timeout', request_id: headers['request-id'] });
  };

  it('answers 408 request_timeout and closes the connection when the headers are not all in within the headers timeout', async () => {
    const { socket, closed } = open();
    trickle(socket, `GET /v1/nature/items HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ${'a'.repeat(100)}`);
    expectTimedOut(await closed);
  }, 30_000);

  it('answers 408 and closes when the body is not all in within the request timeout, though every header came at once', async () => {
    const { socket, closed } = open();
    socket.write(
      `POST /v1/nature/subjects HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 500\r\n\r\n',
    );
    trickle(socket, `{"external_subject_id":"${'x'.repeat(490)}`);
    expectTimedOut(await closed);
  }, 30_000);

  it('closes a kept-alive connection left idle after its answer', async () => {
    const { socket, closed } = open();
    socket.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
    // The server ends it: the client never does.
    const { status, headers } = await closed;
    expect(status).toBe(200);
    expect(headers['keep-alive']).toBe('timeout=1');
  }, 30_000);

  it('answers a request received whole however long its handler takes: the request timeout bounds receiving it only', async () => {
    const slow = open();
    slow.socket.write(`GET /v1/test-slow HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`);
    await slowStarted;
    // A request begun after it runs out its request timeout (2 s) while the slow one is still being answered.
    const trickled = open();
    trickled.socket.write(
      `POST /v1/nature/subjects HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 500\r\n\r\n',
    );
    trickle(trickled.socket, '{"a":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa');
    expectTimedOut(await trickled.closed);
    release();
    const answered = await slow.closed;
    expect({ status: answered.status, body: JSON.parse(answered.body) }).toEqual({ status: 200, body: { done: true } });
  }, 30_000);
});
