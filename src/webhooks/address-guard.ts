import { lookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Where deliveries may go: production to globally routable unicast addresses only; the sandbox also to
 * loopback (a developer's own machine). Private networks, link-local (cloud metadata), CGNAT, multicast
 * and the like are refused in both.
 */
export function isAllowedAddress(address: string, allowLoopback: boolean): boolean {
  if (!ipaddr.isValid(address)) return false;
  const range = ipaddr.process(address).range();
  return range === 'unicast' || (allowLoopback && range === 'loopback');
}

function isLocalName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

/**
 * Why a URL cannot be an endpoint of this environment, or undefined when it can. Production endpoints need
 * https and a public host; sandbox endpoints may also use http and loopback. A literal address is checked
 * here; the addresses a name resolves to are checked at every delivery (see guardedLookup).
 */
export function endpointUrlProblem(raw: string, livemode: boolean): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Must be an absolute URL.';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'Must be an http or https URL.';
  if (url.username !== '' || url.password !== '') return 'Must not carry credentials; verify deliveries by their signature.';
  if (livemode && url.protocol !== 'https:') return 'Production endpoints must use https.';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const allowed = ipaddr.isValid(host)
    ? isAllowedAddress(host, !livemode)
    : livemode
      ? !isLocalName(host) && host.includes('.')
      : true;
  if (!allowed) return livemode ? 'Production endpoints must have a public address.' : 'Sandbox endpoints must have a public or loopback address.';
  return undefined;
}

/** A DNS lookup for deliveries that refuses any address the environment may not reach, so a name cannot point inwards. */
export function guardedLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as unknown as { address: string; family: number }[];
      if (list.length === 0 || list.some((entry) => !isAllowedAddress(entry.address, allowLoopback))) {
        return callback(Object.assign(new Error(`refused: ${hostname} resolves to an address this environment may not reach`), { code: 'EADDRNOTALLOWED' }), '', 0);
      }
      if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
