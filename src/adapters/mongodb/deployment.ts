import { BackendRefusal } from '../../support/operator-errors.js';

/**
 * The oldest MongoDB the service runs on. 5.0 is the first that stores metadata keys starting with `$` or
 * holding `.` through an update pipeline, and the first whose majority read concern cannot be switched off;
 * the rest it needs came before: update pipelines and $$NOW (4.2), transactions that create collections
 * (4.4, also the oldest server the driver speaks to).
 */
export const MINIMUM_MONGODB_VERSION = [5, 0] as const;

/** A server that answers but is deployed in a way the service cannot rely on: its message says why, in one line. */
export class UnsuitableDeploymentError extends BackendRefusal {}

/**
 * The server's replies to `buildInfo` (its `version`) and `hello` (`setName` on a replica set, with `arbiters`
 * when it has any; `msg: 'isdbgrid'` from mongos).
 */
export interface DeploymentReplies {
  buildInfo: Record<string, unknown>;
  hello: Record<string, unknown>;
}

/** What the stores may rely on: transactions (a replica set or a sharded cluster), or none (a standalone server the operator accepted). */
export interface Deployment {
  transactions: boolean;
}

/**
 * Refuses a server older than the minimum, and unless `allowWeakWrites` a standalone one or a replica set with
 * an arbiter. With an arbiter (primary–secondary–arbiter, whose default write concern MongoDB makes w:1), one
 * data-bearing member down leaves no majority to acknowledge a write, so every write fails. A standalone
 * server runs no transactions, so commits cannot be fenced atomically, and it has no replica to fail over to.
 */
export function assessDeployment({ buildInfo, hello }: DeploymentReplies, allowWeakWrites: boolean): Deployment {
  const version = String(buildInfo.version);
  const [major, minor] = (/^(\d+)\.(\d+)/.exec(version)?.slice(1) ?? []).map(Number);
  const [minMajor, minMinor] = MINIMUM_MONGODB_VERSION;
  if (major === undefined || minor === undefined || major < minMajor || (major === minMajor && minor < minMinor)) {
    throw new UnsuitableDeploymentError(`runs MongoDB ${version}; the service needs MongoDB ${MINIMUM_MONGODB_VERSION.join('.')} or newer`);
  }
  const replicated = typeof hello.setName === 'string' || hello.msg === 'isdbgrid';
  if (!replicated && !allowWeakWrites) {
    throw new UnsuitableDeploymentError(
      'is a standalone server: without a replica set writes cannot be acknowledged by a majority, nor commits fenced in a transaction; ' +
        'run it as a replica set (one member will do), or set NATURE_MONGODB_ALLOW_WEAK_WRITES=true to accept weaker guarantees',
    );
  }
  if (Array.isArray(hello.arbiters) && hello.arbiters.length > 0 && !allowWeakWrites) {
    throw new UnsuitableDeploymentError(
      'is a replica set with an arbiter: with one data-bearing member down no write can be acknowledged by a majority; ' +
        'replace the arbiter with a data-bearing member (PSS), or set NATURE_MONGODB_ALLOW_WEAK_WRITES=true to accept that',
    );
  }
  return { transactions: replicated };
}
