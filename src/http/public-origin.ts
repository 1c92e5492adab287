import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

/** A Host that is an authority only (a host and a port): anything more would put a path of the caller's into our links. */
const AUTHORITY = /^[\w.~!$&'()*+,;=:%[\]-]+$/;

/**
 * The origin an answer's links start with: the configured public URL (NATURE_PUBLIC_URL), else the origin the
 * request was sent to (its Host, with TLS or not); '' when neither is known (a request too broken to name a
 * usable Host), which leaves the links relative.
 */
export function originOf(publicUrl: string | undefined, request: IncomingMessage | undefined): string {
  if (publicUrl !== undefined) return publicUrl;
  const host = request?.headers.host;
  if (request === undefined || host === undefined || !AUTHORITY.test(host)) return '';
  const scheme = (request.socket as Partial<TLSSocket>).encrypted === true ? 'https' : 'http';
  // The URL parser checks the port and the host's form, and drops a default port (http://example.com:80).
  return URL.canParse(`${scheme}://${host}`) ? new URL(`${scheme}://${host}`).origin : '';
}
