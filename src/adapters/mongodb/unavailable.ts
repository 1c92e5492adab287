import {
  MongoError,
  MongoNetworkError,
  MongoNotConnectedError,
  MongoServerError,
  MongoServerSelectionError,
  MongoWriteConcernError,
} from 'mongodb';
import { TransactionTimeoutError } from './client.js';

/**
 * The server's codes for "not the primary now" and "shutting down": an election or a restart under way.
 * NotWritablePrimary, NotPrimaryNoSecondaryOk, NotPrimaryOrSecondary, InterruptedAtShutdown,
 * InterruptedDueToReplStateChange, PrimarySteppedDown, ShutdownInProgress.
 */
const STATE_CHANGE_CODES: ReadonlySet<number> = new Set([10107, 13435, 13436, 11600, 11602, 189, 91]);

/**
 * Whether a MongoDB error means the deployment does not answer now (no primary, the network, a majority
 * that did not acknowledge in time, a failover under way), so the same request may well succeed shortly.
 */
export function isMongoUnavailable(error: unknown): boolean {
  return (
    error instanceof MongoServerSelectionError ||
    error instanceof MongoNetworkError ||
    error instanceof MongoNotConnectedError ||
    error instanceof MongoWriteConcernError ||
    error instanceof TransactionTimeoutError ||
    // The pool had no connection free in time (the driver does not export the class).
    (error instanceof Error && error.name === 'MongoWaitQueueTimeoutError') ||
    (error instanceof MongoServerError && typeof error.code === 'number' && STATE_CHANGE_CODES.has(error.code)) ||
    (error instanceof MongoError && (error.hasErrorLabel('RetryableWriteError') || error.hasErrorLabel('TransientTransactionError')))
  );
}
