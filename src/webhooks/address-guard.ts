import { lookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** Where a packet to an address ends up, as far as deliveries care. */
type Reach = 'public' | 'loopback' | 'refused';

/** IANA allocates global unicast from here only (RFC 4291 §2.4); the rest of the space is reserved or special. */
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');
/** NAT64's well-known prefix (RFC 6052): DNS64 gives IPv4-only public names such addresses on IPv6-only networks. */
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

function reach(address: ipaddr.IPv4 | ipaddr.IPv6): Reach {
  if (address.kind() === 'ipv4') {
    const range = address.range();
    return range === 'unicast' ? 'public' : range === 'loopback' ? 'loopback' : 'refused';
  }
  const v6 = address as ipaddr.IPv6;
  // The system connects to an IPv4-mapped address over IPv4: it is the address it embeds.
  if (v6.isIPv4MappedAddress()) return reach(v6.toIPv4Address());
  // A translator forwards to the IPv4 address in the last 32 bits, never to our own loopback.
  if (v6.match(NAT64)) return reach(ipaddr.fromByteArray(v6.toByteArray().slice(12))) === 'public' ? 'public' : 'refused';
  if (v6.range() === 'loopback') return 'loopback';
  // Outside 2000::/3 lie IPv4-compatible (::a.b.c.d), IPv4-translated and local-use NAT64 addresses; inside it, the
  // special ranges (6to4 and Teredo, which embed an IPv4 address, documentation, …) are not plain unicast.
  return v6.match(GLOBAL_UNICAST) && v6.range() === 'unicast' ? 'public' : 'refused';
}

/**
 * Where deliveries may go: public unicast addresses, and loopback where `allowLoopback` (a sandbox whose
 * operator allows it). Private networks, link-local (cloud metadata), CGNAT, multicast, reserved space and
 * IPv6 forms that carry any of these are refused always.
 */
export function isAllowedAddress(address: string, allowLoopback: boolean): boolean {
  // ipaddr.js reads the IPv4-compatible `::a.b.c.d` (how resolvers print ::7f00:1) as the IPv4-mapped
  // `::ffff:a.b.c.d`; it is refused like its hexadecimal twin, which reach() finds outside 2000::/3.
  if (!ipaddr.isValid(address) || /^::[^:]*\./.test(address)) return false;
  const where = reach(ipaddr.parse(address));
  return where === 'public' || (allowLoopback && where === 'loopback');
}

/** A name without its optional final dot: `localhost.` is the same host as `localhost`. */
function withoutRootDot(host: string): string {
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

function isLocalName(name: string): boolean {
  return name === 'localhost' || name.endsWith('.localhost');
}

/**
 * Where an environment's endpoints may be: production's at public addresses only; the sandbox's also on
 * loopback (a developer's own machine) where the operator allows it (NATURE_WEBHOOK_ALLOW_PRIVATE=sandbox).
 */
export interface EndpointRules {
  livemode: boolean;
  loopback: boolean;
}

function refusal({ livemode, loopback }: EndpointRules): string {
  if (livemode) return 'Production endpoints must have a public address.';
  return loopback
    ? 'Sandbox endpoints must have a public or loopback address.'
    : 'Sandbox endpoints must have a public address on this server: its operator does not deliver to loopback.';
}

/**
 * Why the URL's host may not receive this environment's deliveries, or undefined when it may: checked at
 * registration and again before every delivery. A literal address is judged here; the addresses a name
 * resolves to are judged by guardedLookup when it is sent to.
 */
export function hostProblem(url: URL, rules: EndpointRules): string | undefined {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (ipaddr.isValid(host)) return isAllowedAddress(host, rules.loopback) ? undefined : refusal(rules);
  const name = withoutRootDot(host);
  if (name.split('.').includes('')) return 'Must have a host name without empty labels.';
  // A single label resolves through the search domains, to hosts of the server's own network.
  return !rules.loopback && (isLocalName(name) || !name.includes('.')) ? refusal(rules) : undefined;
}

/**
 * Why a URL cannot be an endpoint of this environment, or undefined when it can. The URL is taken as
 * written: the WHATWG parser would quietly repair surrounding spaces, tabs, backslashes or `http:///h`
 * (reading `h` as the host), so whatever it would have to repair is refused instead. Production endpoints
 * need https and a public host; sandbox endpoints may also use http, and loopback where the rules allow it.
 */
export function endpointUrlProblem(raw: string, rules: EndpointRules): string | undefined {
  if (/[\s\p{Cc}\\]/u.test(raw)) return 'Must not contain whitespace, control characters or backslashes.';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'Must be an absolute URL.';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'Must be an http or https URL.';
  const authority = /^https?:\/\/([^/?#]*)/i.exec(raw)?.[1];
  if (!authority) return 'Must name its host after "//".';
  // Also an empty `@`: the parser drops it, but a receiver must never be reached through userinfo.
  if (authority.includes('@')) return 'Must not carry credentials; verify deliveries by their signature.';
  if (rules.livemode && url.protocol !== 'https:') return 'Production endpoints must use https.';
  return hostProblem(url, rules);
}

/** A DNS lookup for deliveries that refuses any address the environment may not reach, so a name cannot point inwards. */
export function guardedLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    lookup(hostname, { ...options, all: true as const }, (error, list) => {
      if (error) return callback(error, '', 0);
      if (list.length === 0 || list.some((entry) => !isAllowedAddress(entry.address, allowLoopback))) {
        return callback(
          Object.assign(new Error(`refused: ${hostname} resolves to an address this environment may not reach`), {
            code: 'EADDRNOTALLOWED',
          }),
          '',
          0,
        );
      }
      if (options.all) return callback(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}
