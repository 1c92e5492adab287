import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** PEM files a test's own certificate authority made: the CA, a server certificate for 127.0.0.1, a client certificate. */
export interface TestPki {
  caFile: string;
  server: { certFile: string; keyFile: string };
  client: { certFile: string; keyFile: string };
}

/** Makes a CA and two certificates it signed, in `dir`, with openssl (P-256 keys, valid for a day). */
export function makeTestPki(dir: string): TestPki {
  const path = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl('req', '-x509', ...key, '-keyout', path('ca.key'), '-out', path('ca.pem'), '-days', '1', '-subj', '/CN=nature test CA');
  const issue = (name: string, extensions: string) => {
    writeFileSync(path(`${name}.ext`), extensions);
    openssl('req', ...key, '-keyout', path(`${name}.key`), '-out', path(`${name}.csr`), '-subj', `/CN=nature test ${name}`);
    openssl(
      'x509',
      '-req',
      '-in',
      path(`${name}.csr`),
      '-CA',
      path('ca.pem'),
      '-CAkey',
      path('ca.key'),
      '-CAcreateserial',
      '-out',
      path(`${name}.pem`),
      '-days',
      '1',
      '-extfile',
      path(`${name}.ext`),
    );
    return { certFile: path(`${name}.pem`), keyFile: path(`${name}.key`) };
  };
  return {
    caFile: path('ca.pem'),
    server: issue('server', 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n'),
    client: issue('client', 'extendedKeyUsage=clientAuth\n'),
  };
}
