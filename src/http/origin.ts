import type { IncomingMessage } from 'node:http';
import { isIPv6 } from 'node:net';
import type { TLSSocket } from 'node:tls';
import type { FastifyRequest } from 'fastify';

/** A Host as a client sends it: a DNS name, an IPv4 or a bracketed IPv6 address, and an optional port; nothing else is echoed. */
const HOST = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * The origin callers reach this server at: NATURE_PUBLIC_URL when set (behind a proxy), else the scheme and Host
 * the request came with; undefined for a Host that is no host name (it is the caller's to write, and is never
 * echoed) or no request at all. X-Forwarded-* is not read: this server trusts no proxy.
 */
export function requestOrigin(publicUrl: string | undefined, request: IncomingMessage | undefined): string | undefined {
  if (publicUrl !== undefined) return publicUrl;
  const host = request?.headers.host;
  if (request === undefined || host === undefined || !HOST.test(host)) return undefined;
  const scheme = (request.socket as Partial<TLSSocket>).encrypted === true ? 'https' : 'http';
  // The URL parser checks the port and drops a default one (http://example.com:80).
  return URL.canParse(`${scheme}://${host}`) ? new URL(`${scheme}://${host}`).origin : undefined;
}

/**
 * The origin the docs and the OpenAPI document name: the request's (requestOrigin), else the address the
 * connection reached, so a page always has an absolute URL to show.
 */
export function originOf(request: FastifyRequest, publicUrl: string | undefined): string {
  const origin = requestOrigin(publicUrl, request.raw);
  if (origin !== undefined) return origin;
  const scheme = request.protocol === 'https' ? 'https' : 'http';
  const { localAddress, localPort } = request.socket;
  // app.inject's requests have no socket of their own.
  if (localAddress === undefined || localPort === undefined) return `${scheme}://localhost`;
  return `${scheme}://${isIPv6(localAddress) ? `[${localAddress}]` : localAddress}:${localPort}`;
}
