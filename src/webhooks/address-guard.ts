import { lookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Only globally routable unicast addresses: not loopback, private, link-local (cloud metadata), CGNAT, multicast, … */
export function isPublicAddress(address: string): boolean {
  if (!ipaddr.isValid(address)) return false;
  return ipaddr.process(address).range() === 'unicast';
}

/**
 * Why a URL cannot be an endpoint of this environment, or undefined when it can. Production endpoints
 * need https and a host that is not a private address or a local name; the address a name resolves to
 * is checked again at every delivery (see guardedLookup). Sandbox endpoints may be http and loopback.
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
  if (!livemode) return undefined;
  if (url.protocol !== 'https:') return 'Production endpoints must use https.';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host) ? !isPublicAddress(host) : host === 'localhost' || host.endsWith('.localhost') || !host.includes('.')) {
    return 'Production endpoints must have a public address.';
  }
  return undefined;
}

/** A DNS lookup for outgoing deliveries that refuses any non-public address, so a name cannot point inwards. */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error) return callback(error, '', 0);
    const list = addresses as unknown as { address: string; family: number }[];
    const blocked = list.find((entry) => !isPublicAddress(entry.address));
    if (blocked || list.length === 0) {
      return callback(Object.assign(new Error(`refused: ${hostname} resolves to a non-public address`), { code: 'EADDRNOTPUBLIC' }), '', 0);
    }
    if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: typeof list) => void)(null, list);
    callback(null, list[0]!.address, list[0]!.family);
  });
};
