import type { LookupAddress } from 'node:dns';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EndpointRules, endpointUrlProblem, guardedLookup, isAllowedAddress } from '../../src/webhooks/address-guard.js';
import { send } from '../../src/webhooks/sender.js';

describe('addresses', () => {
  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8'])(
    'lets the public address %s through in both environments',
    (address) => {
      expect(isAllowedAddress(address, false)).toBe(true);
      expect(isAllowedAddress(address, true)).toBe(true);
    },
  );

  it.each(['127.0.0.1', '::1', '::ffff:127.0.0.1'])('lets loopback %s through in the sandbox only', (address) => {
    expect(isAllowedAddress(address, true)).toBe(true);
    expect(isAllowedAddress(address, false)).toBe(false);
  });

  it.each([
    ['a private address', '10.0.0.1'],
    ['a private address', '172.16.5.4'],
    ['a private address', '192.168.1.1'],
    ['the cloud metadata address', '169.254.169.254'],
    ['a CGNAT address', '100.64.0.1'],
    ['the unspecified address', '0.0.0.0'],
    ['a multicast address', '224.0.0.1'],
    ['a link-local IPv6 address', 'fe80::1'],
    ['a unique local IPv6 address', 'fd00::1'],
    ['an IPv4-mapped private address', '::ffff:10.0.0.1'],
    ['an IPv4-compatible loopback', '::127.0.0.1'],
    ['an IPv4-compatible loopback, in hexadecimal', '::7f00:1'],
    ['an IPv4-compatible private address', '::10.0.0.1'],
    ['an IPv4-compatible public address (deprecated, never routed)', '::8.8.8.8'],
    ['an IPv4-translated loopback', '::ffff:0:127.0.0.1'],
    ['a NAT64 private address', '64:ff9b::10.0.0.1'],
    ['a NAT64 loopback', '64:ff9b::127.0.0.1'],
    ['a local-use NAT64 address', '64:ff9b:1::a00:1'],
    ['a 6to4 loopback', '2002:7f00:1::'],
    ['a 6to4 private address', '2002:a00:1::1'],
    ['a Teredo address', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
    ['IPv6 documentation space', '2001:db8::1'],
    ['reserved IPv6 space', '4000::1'],
    ['something else', 'not-an-ip'],
  ])('refuses %s (%s) in both environments', (_case, address) => {
    expect(isAllowedAddress(address, true)).toBe(false);
    expect(isAllowedAddress(address, false)).toBe(false);
  });
});

const PRODUCTION: EndpointRules = { livemode: true, loopback: false };
const SANDBOX: EndpointRules = { livemode: false, loopback: true };
/** The sandbox where the operator keeps deliveries off loopback (NATURE_WEBHOOK_ALLOW_PRIVATE=never). */
const SANDBOX_PUBLIC_ONLY: EndpointRules = { livemode: false, loopback: false };

describe('endpoint URLs', () => {
  it.each([
    ['a leading space', ' https://hooks.example.com/x', /whitespace/],
    ['a trailing space', 'https://hooks.example.com/x ', /whitespace/],
    ['a trailing newline', 'https://hooks.example.com/x\n', /whitespace/],
    ['a tab inside', 'https://hooks.exa\tmple.com/x', /whitespace/],
    ['a backslash', 'https://hooks.example.com\\@evil.example/x', /backslash/],
    ['an empty host', 'https:///hooks.example.com/x', /host/],
    ['no slashes', 'https:hooks.example.com/x', /host/],
    ['an empty userinfo', 'https://@hooks.example.com/x', /credentials/],
    ['credentials', 'https://user:pass@hooks.example.com/x', /credentials/],
    ['an empty label', 'https://hooks..example.com/x', /empty labels/],
    ['only a dot', 'https://./x', /empty labels/],
    ['another scheme', 'ftp://hooks.example.com/x', /http or https/],
    ['no scheme', 'hooks.example.com', /absolute/],
  ])('refuses %s in both environments', (_case, url, problem) => {
    expect(endpointUrlProblem(url, PRODUCTION)).toMatch(problem);
    expect(endpointUrlProblem(url, SANDBOX)).toMatch(problem);
  });

  it('refuses an empty host in the sandbox too, which the URL parser would read as a host', () => {
    expect(endpointUrlProblem('http:///h', SANDBOX)).toMatch(/host/);
  });

  it.each([
    'https://localhost/x',
    'https://localhost./x',
    'https://hooks.localhost./x',
    'https://metadata/x',
    'https://metadata./x',
    'https://127.0.0.1./x',
    'https://[::127.0.0.1]/x',
    'https://[::ffff:127.0.0.1]/x',
    'https://[64:ff9b::10.0.0.1]/x',
    'https://[2002:7f00:1::]/x',
    'https://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x',
    'https://0x7f.1/x',
  ])('refuses the production endpoint %s: not a public host', (url) => {
    expect(endpointUrlProblem(url, PRODUCTION)).toBe('Production endpoints must have a public address.');
  });

  it('treats a name with its final dot as the same name', () => {
    expect(endpointUrlProblem('https://hooks.example.com./x', PRODUCTION)).toBeUndefined();
    expect(endpointUrlProblem('http://localhost.:3000/x', SANDBOX)).toBeUndefined();
  });

  it('allows sandbox endpoints on loopback http but not on private networks, and production ones on public https only', () => {
    expect(endpointUrlProblem('http://127.0.0.1:3000/x', SANDBOX)).toBeUndefined();
    expect(endpointUrlProblem('http://localhost:3000/x', SANDBOX)).toBeUndefined();
    expect(endpointUrlProblem('http://[::ffff:127.0.0.1]:3000/x', SANDBOX)).toBeUndefined();
    expect(endpointUrlProblem('http://[::127.0.0.1]:3000/x', SANDBOX)).toMatch(/public or loopback/);
    expect(endpointUrlProblem('http://10.0.0.1:9200/x', SANDBOX)).toMatch(/public or loopback/);
    expect(endpointUrlProblem('http://169.254.169.254/latest', SANDBOX)).toMatch(/public or loopback/);
    expect(endpointUrlProblem('http://127.0.0.1:3000/x', PRODUCTION)).toMatch(/https/);
    expect(endpointUrlProblem('https://hooks.example.com/x', PRODUCTION)).toBeUndefined();
    expect(endpointUrlProblem('HTTPS://Hooks.Example.com:8443/x?y=1#z', PRODUCTION)).toBeUndefined();
    expect(endpointUrlProblem('https://[64:ff9b::8.8.8.8]/x', PRODUCTION)).toBeUndefined();
  });

  it.each([
    'http://127.0.0.1:3000/x',
    'http://[::1]:3000/x',
    'http://[::ffff:127.0.0.1]:3000/x',
    'http://localhost:3000/x',
    'http://hooks.localhost./x',
    'http://metadata/x',
  ])('refuses the sandbox endpoint %s where the operator keeps deliveries off loopback', (url) => {
    expect(endpointUrlProblem(url, SANDBOX_PUBLIC_ONLY)).toMatch(
      /^Sandbox endpoints must have a public address on this server: .*loopback/,
    );
    expect(endpointUrlProblem('http://hooks.example.com/x', SANDBOX_PUBLIC_ONLY)).toBeUndefined();
  });
});

describe('delivery-time checks', () => {
  const resolve = (allowLoopback: boolean, host: string) =>
    new Promise<{ error: NodeJS.ErrnoException | null; address: string | LookupAddress[] }>((done) =>
      guardedLookup(allowLoopback)(host, {}, (error, address) => done({ error, address })),
    );

  it('refuses a production name that resolves to loopback', async () => {
    const result = await resolve(false, 'localhost');
    expect(result.error?.code).toBe('EADDRNOTALLOWED');
  });

  it('lets a sandbox name resolve to loopback', async () => {
    const result = await resolve(true, 'localhost');
    expect(result.error).toBeNull();
    expect(['127.0.0.1', '::1']).toContain(result.address);
  });

  describe('sending', () => {
    let server: Server;
    let port: number;
    let requests = 0;
    beforeAll(async () => {
      server = createServer((_request, response) => {
        requests += 1;
        response.end('ok');
      });
      await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
      port = (server.address() as { port: number }).port;
    });
    afterAll(() => new Promise<void>((done) => server.close(() => done())));

    const post = (url: string, rules: EndpointRules) => send({ url, body: '{}', headers: {}, timeoutMs: 2000, rules });

    // A literal address is connected to without a lookup, so the sender judges it itself (an endpoint may predate a rule).
    it.each([
      ['an IPv4-mapped loopback, in production', `http://[::ffff:127.0.0.1]:${0}/x`, PRODUCTION],
      ['a loopback name with its final dot, in production', `http://localhost.:${0}/x`, PRODUCTION],
      ['an IPv4-compatible loopback, in the sandbox', `http://[::127.0.0.1]:${0}/x`, SANDBOX],
      ['a loopback address, in a sandbox kept off loopback', `http://127.0.0.1:${0}/x`, SANDBOX_PUBLIC_ONLY],
      ['a loopback name, in a sandbox kept off loopback', `http://localhost:${0}/x`, SANDBOX_PUBLIC_ONLY],
    ])('refuses %s without connecting', async (_case, template, rules) => {
      const before = requests;
      const sent = await post(template.replace(':0/', `:${port}/`), rules);
      expect(sent).toMatchObject({ status_code: null, error: expect.stringMatching(/^refused: /) });
      expect(requests).toBe(before);
    });

    it('delivers to sandbox loopback, keeping the status but never showing what loopback answered', async () => {
      expect(await post(`http://127.0.0.1:${port}/x`, SANDBOX)).toMatchObject({ status_code: 200, error: null, response_excerpt: null });
      expect(await post(`http://localhost:${port}/x`, SANDBOX)).toMatchObject({ status_code: 200, error: null, response_excerpt: null });
    });
  });
});
