import { isIPv6 } from 'node:net';
import type { FastifyRequest } from 'fastify';

/** A Host as a client sends it: a DNS name, an IPv4 or a bracketed IPv6 address, and an optional port; nothing else is echoed. */
const HOST = /^(?:[a-z0-9-]+(?:\.[a-z0-9-]+)*\.?|\[[0-9a-f:.]+\])(?::\d{1,5})?$/i;

/**
 * The origin callers reach this server at, for the URLs the docs and the OpenAPI document show: NATURE_PUBLIC_URL
 * when set (behind a proxy), else the request's scheme and Host. X-Forwarded-* is not read: fastify trusts no proxy
 * here. A Host that is no host name (it is the caller's to write) gives way to the address the connection reached.
 */
export function originOf(request: FastifyRequest, publicUrl: string | undefined): string {
  if (publicUrl !== undefined) return publicUrl;
  const scheme = request.protocol === 'https' ? 'https' : 'http';
  const given = `${scheme}://${request.host}`;
  if (HOST.test(request.host) && URL.canParse(given)) return new URL(given).origin;
  const { localAddress, localPort } = request.socket;
  // app.inject's requests have no socket of their own.
  if (localAddress === undefined || localPort === undefined) return `${scheme}://localhost`;
  return `${scheme}://${isIPv6(localAddress) ? `[${localAddress}]` : localAddress}:${localPort}`;
}
