import { MongoNetworkTimeoutError, MongoServerError } from 'mongodb';
import { describe, expect, it } from 'vitest';
import { TransactionTimeoutError } from '../../src/adapters/mongodb/client.js';
import { isMongoUnavailable } from '../../src/adapters/mongodb/unavailable.js';

describe('MongoDB errors that mean "not now" (answered 503, retried)', () => {
  it.each([
    ['a network timeout', new MongoNetworkTimeoutError('connection 3 to 10.0.0.7:27017 timed out')],
    ['not the primary any more (an election)', new MongoServerError({ code: 10107, errmsg: 'not primary' })],
    ['the primary stepped down', new MongoServerError({ code: 189, errmsg: 'primary stepped down' })],
    [
      'a pool with no connection free in time',
      Object.assign(new Error('timed out while checking out a connection'), { name: 'MongoWaitQueueTimeoutError' }),
    ],
    ['a transaction retried past the backend timeout', new TransactionTimeoutError(10_000)],
  ])('counts %s', (_, error) => {
    expect(isMongoUnavailable(error)).toBe(true);
  });

  it.each([
    ['a duplicate key', new MongoServerError({ code: 11000, errmsg: 'E11000 duplicate key' })],
    ['a fault of ours', new TypeError('cannot read properties of undefined')],
  ])('does not count %s', (_, error) => {
    expect(isMongoUnavailable(error)).toBe(false);
  });
});
