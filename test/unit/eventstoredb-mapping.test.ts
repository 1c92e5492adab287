import { ANY, NO_STREAM } from '@eventstore/db-client';
import { describe, expect, it } from 'vitest';
import {
  decodePosition,
  encodePosition,
  fromCurrentRevision,
  fromStoredEvent,
  isServerEvent,
  toEventData,
  toExpectedRevision,
} from '../../src/adapters/eventstoredb/mapping.js';

const MAX_U64 = (1n << 64n) - 1n;

describe('EventStoreDB mapping (no server)', () => {
  it('encodes a $all position into one bigint and back, for any 64-bit commit and prepare', () => {
    for (const position of [
      { commit: 0n, prepare: 0n },
      { commit: 1234n, prepare: 1234n },
      { commit: MAX_U64, prepare: MAX_U64 },
      { commit: 2n ** 53n + 1n, prepare: 7n },
    ]) {
      expect(decodePosition(encodePosition(position))).toEqual(position);
    }
    expect(encodePosition({ commit: MAX_U64, prepare: MAX_U64 })).toBeGreaterThan(BigInt(Number.MAX_SAFE_INTEGER));
  });

  it('keeps the order of $all: by commit, then by prepare', () => {
    const positions = [
      { commit: 10n, prepare: 10n },
      { commit: 10n, prepare: 11n },
      { commit: 11n, prepare: 0n },
      { commit: 2n ** 40n, prepare: 0n },
    ].map(encodePosition);
    expect([...positions].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))).toEqual(positions);
  });

  it('maps expected revisions to the client constants, and its current revision back', () => {
    expect(toExpectedRevision('no_stream')).toBe(NO_STREAM);
    expect(toExpectedRevision('any')).toBe(ANY);
    expect(toExpectedRevision(41n)).toBe(41n);
    expect(fromCurrentRevision(NO_STREAM)).toBe(-1n);
    expect(fromCurrentRevision(7n)).toBe(7n);
  });

  it('sends our event id, type, data and metadata as a JSON event', () => {
    const data = toEventData({
      id: '0b0e6a3e-5f7c-4c61-9a55-2a4b1c7f0f11',
      type: 'SubjectCreated',
      data: { subject_id: 'sub_1' },
      metadata: { request_id: 'req_1' },
    });
    expect(data).toEqual({
      id: '0b0e6a3e-5f7c-4c61-9a55-2a4b1c7f0f11',
      contentType: 'application/json',
      type: 'SubjectCreated',
      data: { subject_id: 'sub_1' },
      metadata: { request_id: 'req_1' },
    });
  });

  it("reads a recorded event back into the port's shape, without the environment's prefix", () => {
    const recorded = fromStoredEvent(
      {
        id: 'e-1',
        streamId: 'sandbox.subject-sub_1',
        revision: 3n,
        type: 'ConsentRecorded',
        created: new Date('2026-11-21T10:00:00.000Z'),
        data: { a: 1 },
        metadata: { key_id: 'key_1' },
        position: { commit: 5n, prepare: 5n },
      },
      'sandbox.',
    );
    expect(recorded).toEqual({
      id: 'e-1',
      streamName: 'subject-sub_1',
      revision: 3n,
      position: encodePosition({ commit: 5n, prepare: 5n }),
      type: 'ConsentRecorded',
      data: { a: 1 },
      metadata: { key_id: 'key_1' },
      recordedAt: '2026-11-21T10:00:00.000Z',
    });
  });

  it("refuses an event of another environment's streams", () => {
    const stored = {
      id: 'e',
      streamId: 'production.subject-sub_1',
      revision: 0n,
      type: 't',
      created: new Date(),
      data: {},
      metadata: {},
      position: { commit: 1n, prepare: 1n },
    };
    expect(() => fromStoredEvent(stored, 'sandbox.')).toThrow(/outside sandbox\./);
  });

  it("tells the server's records in our streams (a deleted stream's tombstone) from our events", () => {
    expect(isServerEvent({ type: '$streamDeleted' })).toBe(true);
    expect(isServerEvent({ type: 'SubjectCreated' })).toBe(false);
  });
});
