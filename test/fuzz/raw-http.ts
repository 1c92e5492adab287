import { connect } from 'node:net';

/** An HTTP/1.1 response as it came off the socket. */
export interface RawResponse {
  status: number;
  /** Header names in lower case; repeated headers keep every value. */
  headers: Record<string, string[]>;
  body: Buffer;
}

export type RawOutcome =
  | { kind: 'response'; response: RawResponse }
  /** The server closed (or reset) the connection without a complete response. */
  | { kind: 'closed'; received: Buffer; error?: string }
  /** Nothing complete arrived in time; the socket was destroyed. */
  | { kind: 'timeout'; received: Buffer };

export interface SendOptions {
  /** Half-close our side after writing (the server sees the end of the request stream). */
  halfClose?: boolean;
  /** Give up waiting for a response after this long. */
  timeoutMs?: number;
}

/**
 * Sends bytes as they are over a fresh TCP connection and reads one response. fetch cannot send what
 * the fuzz suite needs (bad request lines, truncated bodies, duplicate or malformed headers), so every
 * fuzz request goes this way.
 */
export function sendRaw(port: number, bytes: Buffer, { halfClose = false, timeoutMs = 10_000 }: SendOptions = {}): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port, allowHalfOpen: true });
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (outcome: RawOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(lingering);
      socket.destroy();
      resolve(outcome);
    };
    let complete: RawResponse | undefined;
    let lingering: NodeJS.Timeout | undefined;
    // A complete response is returned once the server closes the connection (every request says
    // Connection: close), so whatever it does on closing (logging an aborted body, say) has happened.
    const tryParse = (final: boolean, error?: string) => {
      const received = Buffer.concat(chunks);
      complete ??= parseResponse(received, final);
      if (complete && final) finish({ kind: 'response', response: complete });
      else if (complete) lingering ??= setTimeout(() => finish({ kind: 'response', response: complete! }), 1000);
      else if (final) finish({ kind: 'closed', received, ...(error !== undefined && { error }) });
    };
    const timer = setTimeout(() => finish({ kind: 'timeout', received: Buffer.concat(chunks) }), timeoutMs);
    socket.on('connect', () => {
      socket.write(bytes, () => {
        if (halfClose) socket.end();
      });
    });
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      tryParse(false);
    });
    socket.on('end', () => tryParse(true));
    socket.on('close', () => tryParse(true));
    // A reset after the server answered (it may answer before reading the whole body) still counts.
    socket.on('error', (error) => tryParse(true, error.message));
  });
}

const HEADER_END = Buffer.from('\r\n\r\n');

/** The first response in `data`, once complete; with `final` (the connection ended) a body read to the end counts. */
export function parseResponse(data: Buffer, final: boolean): RawResponse | undefined {
  const end = data.indexOf(HEADER_END);
  if (end === -1) return undefined;
  const lines = data.subarray(0, end).toString('latin1').split('\r\n');
  const statusLine = /^HTTP\/\d\.\d (\d{3})/.exec(lines[0] ?? '');
  if (!statusLine) return final ? { status: 0, headers: {}, body: data } : undefined;
  const headers: Record<string, string[]> = {};
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon === -1) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    headers[name] = [...(headers[name] ?? []), line.slice(colon + 1).trim()];
  }
  const status = Number(statusLine[1]);
  const rest = data.subarray(end + 4);
  // An interim answer (100 Continue): the response is the one after it.
  if (status >= 100 && status < 200 && status !== 101) return parseResponse(rest, final);
  if (status === 204 || status === 304) return { status, headers, body: Buffer.alloc(0) };
  const length = headers['content-length']?.[0];
  if (length !== undefined) {
    const n = Number(length);
    return rest.length >= n ? { status, headers, body: rest.subarray(0, n) } : final ? { status, headers, body: rest } : undefined;
  }
  if (headers['transfer-encoding']?.some((value) => /chunked/i.test(value))) {
    const body = dechunk(rest);
    return body ? { status, headers, body } : final ? { status, headers, body: rest } : undefined;
  }
  return final ? { status, headers, body: rest } : undefined;
}

function dechunk(data: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at);
    if (lineEnd === -1) return undefined;
    const size = parseInt(data.subarray(at, lineEnd).toString('latin1'), 16);
    if (Number.isNaN(size)) return undefined;
    if (size === 0) return Buffer.concat(parts);
    const start = lineEnd + 2;
    if (data.length < start + size + 2) return undefined;
    parts.push(data.subarray(start, start + size));
    at = start + size + 2;
  }
}
