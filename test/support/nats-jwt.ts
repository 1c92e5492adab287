import { nkeys } from 'nats';

/**
 * A NATS operator of the test's own, as `nsc` would make one: the server configuration that trusts it (its
 * JWT, and two accounts preloaded: one with JetStream, and the system account), and `.creds` files for users of
 * that account. Only for tests: what a managed NATS hands its users.
 */
export function testOperator() {
  const operator = nkeys.createOperator();
  const account = nkeys.createAccount();
  const system = nkeys.createAccount();
  const unlimited = { subs: -1, data: -1, payload: -1, imports: -1, exports: -1, wildcards: true, conn: -1, leaf: -1 };
  const jetStream = {
    mem_storage: -1,
    disk_storage: -1,
    streams: -1,
    consumer: -1,
    max_ack_pending: -1,
    mem_max_stream_bytes: -1,
    disk_max_stream_bytes: -1,
    max_bytes_required: false,
  };
  const permissions = { pub: {}, sub: {} };
  const config = [
    `operator: ${jwt(operator, operator.getPublicKey(), 'test operator', { type: 'operator', version: 2, system_account: system.getPublicKey() })}`,
    `system_account: ${system.getPublicKey()}`,
    'resolver: MEMORY',
    'resolver_preload: {',
    `  ${account.getPublicKey()}: ${jwt(operator, account.getPublicKey(), 'nature', { limits: { ...unlimited, ...jetStream }, default_permissions: permissions, type: 'account', version: 2 })}`,
    `  ${system.getPublicKey()}: ${jwt(operator, system.getPublicKey(), 'SYS', { limits: unlimited, default_permissions: permissions, type: 'account', version: 2 })}`,
    '}',
  ].join('\n');
  /** A user of the account, as a `.creds` file's text; `signer` another account's key makes one the server does not trust. */
  const creds = (signer = account) => {
    const user = nkeys.createUser();
    const token = jwt(signer, user.getPublicKey(), 'svc', { ...permissions, subs: -1, data: -1, payload: -1, type: 'user', version: 2 });
    const seed = new TextDecoder().decode(user.getSeed());
    return `-----BEGIN NATS USER JWT-----\n${token}\n------END NATS USER JWT------\n\n-----BEGIN USER NKEY SEED-----\n${seed}\n------END USER NKEY SEED------\n`;
  };
  return { config, creds, stranger: () => creds(nkeys.createAccount()) };
}

type Signer = ReturnType<typeof nkeys.createOperator>;

/** A NATS JWT (v2): `issuer` signs the claims about `subject`. */
function jwt(issuer: Signer, subject: string, name: string, nats: object): string {
  const base64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
  const header = base64url(JSON.stringify({ typ: 'JWT', alg: 'ed25519-nkey' }));
  const jti = base64url(crypto.getRandomValues(new Uint8Array(16)));
  const claims = base64url(
    JSON.stringify({ jti, iat: Math.floor(Date.now() / 1000), iss: issuer.getPublicKey(), name, sub: subject, nats }),
  );
  return `${header}.${claims}.${base64url(issuer.sign(new TextEncoder().encode(`${header}.${claims}`)))}`;
}
