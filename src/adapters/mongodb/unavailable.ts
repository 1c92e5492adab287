import { MongoError, MongoNetworkError, MongoNotConnectedError, MongoServerSelectionError, MongoWriteConcernError } from 'mongodb';

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
    (error instanceof MongoError && (error.hasErrorLabel('RetryableWriteError') || error.hasErrorLabel('TransientTransactionError')))
  );
}
