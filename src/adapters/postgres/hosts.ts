import { connect, Socket } from 'node:net';
import postgres from 'postgres';
import { within } from '../../support/backend-timeout.js';
import type { ConnectionOptionsOf } from './connection-options.js';

/** One server of a multi-host URL (`postgres://user@db1:5432,db2:5432/nature`). */
export interface HostPort {
  host: string;
  port: number;
}

/** How long the connection to one host may take to open, in seconds (the driver's default, 30, per host). */
const CONNECT_TIMEOUT_S = 10;

/** The code of the error a connection meets when no server of the URL accepts writes: a failover under way. */
export const NO_WRITABLE_SERVER = 'NATURE_NO_WRITABLE_SERVER';

/** The servers a URL names in order, or undefined when it names one (the driver's own connecting does then). */
export function hostsOf(url: string): HostPort[] | undefined {
  const afterScheme = url.slice(url.indexOf('://') + 3);
  const netloc = afterScheme.split(/[/?]/)[0]!;
  const list = netloc.slice(netloc.lastIndexOf('@') + 1);
  if (!list.includes(',')) return undefined;
  return list.split(',').map((entry) => {
    const bracket = entry.match(/^\[(.+)\](?::(\d+))?$/);
    const [host, port] = bracket ? [bracket[1]!, bracket[2]] : entry.split(':');
    return { host: decodeURIComponent(host!), port: port === undefined ? 5432 : Number(port) };
  });
}

/**
 * The connecting of a pool on a multi-host URL, done here rather than by the driver. Postgres.js 3.4.9 tries the
 * next host after a refused or read-only one, but never gives up: while no host accepts writes (the primary dead,
 * the standby not yet promoted) a query waits for ever (porsager/postgres#1174), where a caller should be answered
 * 503 at once and retry. So the pool is given the first host only (the driver then fails a query whose connection
 * fails), and each of its connections is opened by `socket`: it asks the hosts in order which one accepts writes,
 * on a short-lived connection of its own, and connects to the first that does. When none does, the socket it
 * returns fails with NO_WRITABLE_SERVER, which the pool reports to the query and closes like any failed connection.
 * Both ask for `primary`, not the URL's `read-write`: on PostgreSQL 14 and newer the driver's read-write test looks
 * at default_transaction_read_only only, which a hot standby reports off; `primary` looks at in_hot_standby. So the
 * driver also refuses a connection that lands on a server demoted since the question. The cost: one more
 * connection each time the pool opens one.
 */
export function multiHostConnecting(url: string, hosts: readonly HostPort[], access: Pick<ConnectionOptionsOf, 'ssl' | 'pass'>) {
  const writable = async ({ host, port }: HostPort): Promise<boolean> => {
    // The URL's user, password and TLS settings, on this one host.
    const probe = postgres(url, {
      ...access,
      host,
      port,
      max: 1,
      connect_timeout: CONNECT_TIMEOUT_S,
      target_session_attrs: 'primary',
      onnotice: () => undefined,
    });
    // Both bounded: the pool's connection waits for this answer before its own connect_timeout starts, and the
    // driver can leave a query or its end unanswered after a server closed on it (porsager/postgres#1193, #1097).
    try {
      await within(CONNECT_TIMEOUT_S * 1000, probe`SELECT 1`);
      return true;
    } catch {
      return false;
    } finally {
      await within(2_000, probe.end({ timeout: 1 })).catch(() => undefined);
    }
  };
  return {
    connect_timeout: CONNECT_TIMEOUT_S,
    target_session_attrs: 'primary' as const,
    host: hosts[0]!.host,
    port: hosts[0]!.port,
    async socket(): Promise<Socket> {
      for (const target of hosts) if (await writable(target)) return opened(target);
      return failing(new Error(`no server of POSTGRES_URL accepts writes now (${hosts.map(name).join(', ')})`));
    },
  };
}

const name = ({ host, port }: HostPort) => `${host}:${port}`;

/** A socket connected to `target`, or one that fails as a refused connection would when it cannot be. */
function opened(target: HostPort): Promise<Socket> {
  return new Promise((resolve) => {
    const socket = connect({ host: target.host, port: target.port, timeout: CONNECT_TIMEOUT_S * 1000 });
    // Where the driver reads the host its TLS checks the certificate against (its own sockets carry it too).
    Object.assign(socket, { host: target.host, port: target.port });
    const settle = (error?: Error) => {
      socket.removeAllListeners();
      socket.setTimeout(0);
      resolve(error === undefined ? socket : failing(error));
    };
    socket.once('connect', () => settle());
    socket.once('error', settle);
    socket.once('timeout', () => settle(Object.assign(new Error(`${name(target)} did not answer`), { code: 'CONNECT_TIMEOUT' })));
  });
}

/**
 * A socket that fails with `error` once the pool listens to it (after this turn of the event loop): the pool
 * rejects the connection's query and closes it as after a refused connection. Thrown instead, the error would
 * leave the pool's connection neither open nor closed, a slot lost for good.
 */
function failing(error: Error): Socket {
  const socket = new Socket();
  const coded = Object.assign(error, { code: (error as { code?: string }).code ?? NO_WRITABLE_SERVER });
  setImmediate(() => socket.destroy(coded));
  return socket;
}
