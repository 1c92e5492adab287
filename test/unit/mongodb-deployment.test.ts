import { describe, expect, it } from 'vitest';
import { assessDeployment, UnsuitableDeploymentError } from '../../src/adapters/mongodb/deployment.js';

const replicaSet = { setName: 'rs0', isWritablePrimary: true };
const standalone = { isWritablePrimary: true };
const mongos = { msg: 'isdbgrid', isWritablePrimary: true };
const version = (v: string) => ({ version: v, versionArray: v.split('.').map(Number) });

describe('the MongoDB deployment the service accepts (no server)', () => {
  it('takes a replica set or a sharded cluster of 5.0 or newer, with transactions', () => {
    expect(assessDeployment({ buildInfo: version('8.0.13'), hello: replicaSet }, false)).toEqual({ transactions: true });
    expect(assessDeployment({ buildInfo: version('5.0.0'), hello: replicaSet }, false)).toEqual({ transactions: true });
    expect(assessDeployment({ buildInfo: version('7.0.2'), hello: mongos }, false)).toEqual({ transactions: true });
    expect(assessDeployment({ buildInfo: { version: '10.1.0-rc0' }, hello: replicaSet }, false)).toEqual({ transactions: true });
  });

  it('refuses a server older than 5.0, in one line that names its version and the minimum', () => {
    for (const old of ['4.4.29', '4.2.0', '3.6.23']) {
      expect(() => assessDeployment({ buildInfo: version(old), hello: replicaSet }, true)).toThrow(
        new UnsuitableDeploymentError(`runs MongoDB ${old}; the service needs MongoDB 5.0 or newer`),
      );
    }
    expect(() => assessDeployment({ buildInfo: {}, hello: replicaSet }, false)).toThrow(UnsuitableDeploymentError);
  });

  it('refuses a standalone server, which can neither acknowledge by a majority nor run transactions, and says how to opt out', () => {
    const refusal = (() => {
      try {
        assessDeployment({ buildInfo: version('8.0.13'), hello: standalone }, false);
      } catch (error) {
        return error;
      }
    })();
    expect(refusal).toBeInstanceOf(UnsuitableDeploymentError);
    expect((refusal as Error).message).toMatch(/^is a standalone server: .*replica set.*NATURE_MONGODB_ALLOW_WEAK_WRITES=true/);
    expect((refusal as Error).message).not.toContain('\n');
  });

  it('refuses a replica set with an arbiter (its default write concern is w:1; a member down stops every majority write), unless allowed', () => {
    const psa = { ...replicaSet, arbiters: ['db3:27017'] };
    expect(() => assessDeployment({ buildInfo: version('8.0.13'), hello: psa }, false)).toThrow(
      /^is a replica set with an arbiter: .*NATURE_MONGODB_ALLOW_WEAK_WRITES=true/,
    );
    expect(assessDeployment({ buildInfo: version('8.0.13'), hello: psa }, true)).toEqual({ transactions: true });
    expect(assessDeployment({ buildInfo: version('8.0.13'), hello: { ...replicaSet, arbiters: [] } }, false)).toEqual({
      transactions: true,
    });
  });

  it('accepts a standalone server the operator allowed, without transactions', () => {
    expect(assessDeployment({ buildInfo: version('6.0.1'), hello: standalone }, true)).toEqual({ transactions: false });
  });
});
