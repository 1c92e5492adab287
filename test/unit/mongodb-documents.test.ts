import { BSON } from 'mongodb';
import { describe, expect, it } from 'vitest';
import {
  blanking,
  COUNTERS,
  commitPlan,
  counting,
  forwardCheckpoint,
  fromStored,
  guardedReplace,
  isTombstone,
  takeLease,
  tombstone,
  toStored,
} from '../../src/adapters/mongodb/documents.js';
import { positionKey } from '../../src/adapters/position-key.js';

describe('MongoDB read-model documents (no server)', () => {
  it('stores positions as fixed-width strings that sort like the bigints, up to 128 bits', () => {
    const positions = [0n, 9n, 10n, 2n ** 53n + 1n, 2n ** 64n, (1n << 128n) - 1n];
    const keys = positions.map(positionKey);
    expect(keys.every((key) => key.length === 40)).toBe(true);
    expect([...keys].sort()).toEqual(keys);
    expect(keys.map((key) => BigInt(key))).toEqual(positions);
    expect(() => positionKey(-1n)).toThrow();
  });

  it('maps id to _id with the position beside it, and back', () => {
    const doc = { id: 'sub_1', external_subject_id: 'emp-1', metadata: { cohort: 'a' }, consent: null };
    const stored = toStored(doc, 42n);
    expect(stored).toEqual({
      _id: 'sub_1',
      external_subject_id: 'emp-1',
      metadata: { cohort: 'a' },
      consent: null,
      _position: positionKey(42n),
    });
    expect(fromStored(stored)).toEqual(doc);
  });

  it('keeps __proto__, dotted and dollar metadata keys as plain data through BSON', () => {
    const metadata = JSON.parse('{"__proto__":"x","constructor":"c","a.b":"dot","$where":"dollar"}');
    const stored = toStored({ id: 'sub_1', metadata }, 1n);
    const roundTrip = fromStored(BSON.deserialize(BSON.serialize(stored)));
    expect(Object.keys(roundTrip.metadata as object)).toEqual(['__proto__', 'constructor', 'a.b', '$where']);
    expect((roundTrip.metadata as Record<string, string>)['a.b']).toBe('dot');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it('replaces a document only with a newer event, the new document as a literal, filtering on _id alone', () => {
    const stored = toStored({ id: 'sub_1', metadata: { $where: 'x' } }, 7n);
    expect(guardedReplace(stored)).toEqual([
      { $replaceWith: { $cond: [{ $lt: [{ $ifNull: ['$_position', ''] }, positionKey(7n)] }, { $literal: stored }, '$$ROOT'] } },
    ]);
    // A pipeline update must survive BSON as sent to the server.
    expect(BSON.deserialize(BSON.serialize({ u: guardedReplace(stored) })).u).toEqual(guardedReplace(stored));
  });

  it('blanks a document with a pipeline: _id and the kept fields projected, `set` as literals, the position moved forwards', () => {
    const set = { erased: true, note: { $where: 'x' }, label: '$name' };
    const pipeline = blanking(['id', 'subject_id', 'status'], set, 12n);
    const forwards = (position: bigint) => ({ $max: [{ $ifNull: ['$_position', ''] }, positionKey(position)] });
    expect(pipeline).toEqual([
      // `id` is the document's _id in MongoDB, so it is not projected as a field of its own.
      { $project: { _id: 1, _position: 1, subject_id: 1, status: 1 } },
      { $set: { erased: { $literal: true }, note: { $literal: { $where: 'x' } }, label: { $literal: '$name' }, _position: forwards(12n) } },
    ]);
    expect(blanking([], {}, 0n)).toEqual([{ $project: { _id: 1, _position: 1 } }, { $set: { _position: forwards(0n) } }]);
    expect(BSON.deserialize(BSON.serialize({ u: pipeline })).u).toEqual(pipeline);
  });

  it('removes a document by replacing it with a tombstone that keeps its position, through the same guard', () => {
    const removed = tombstone('whe_1', 9n);
    expect(removed).toEqual({ _id: 'whe_1', _position: positionKey(9n), _removed: true });
    expect(isTombstone(removed)).toBe(true);
    expect(isTombstone(toStored({ id: 'whe_1', removed: true }, 9n))).toBe(false);
    expect(guardedReplace(removed)[0]!.$replaceWith.$cond[0]).toEqual({ $lt: [{ $ifNull: ['$_position', ''] }, positionKey(9n)] });
  });

  it("counts in _counters with a pipeline: one per event newer than the row's position, the row's values as literals", () => {
    const write = { collection: 'usage', counter: 'day', period: '2026-11-02', key: '$key', positions: [4n, 9n] };
    const { filter, update } = counting(write);
    const held = { $ifNull: ['$_position', ''] };
    expect(filter).toEqual({ _id: 'usage day 2026-11-02 $key' });
    expect(update).toEqual([
      {
        $set: {
          collection: { $literal: 'usage' },
          counter: { $literal: 'day' },
          period: { $literal: '2026-11-02' },
          key: { $literal: '$key' },
          n: {
            $add: [
              { $ifNull: ['$n', 0] },
              { $size: { $filter: { input: { $literal: [positionKey(4n), positionKey(9n)] }, cond: { $gt: ['$$this', held] } } } },
            ],
          },
          _position: { $max: [held, positionKey(9n)] },
        },
      },
    ]);
    expect(BSON.deserialize(BSON.serialize({ u: update })).u).toEqual(update);
    // A commit writes its counter rows to their own collection, apart from the documents.
    const plan = commitPlan('usage', 9n, [write, { collection: 'usage', id: 'assessment-1', doc: null }], undefined);
    expect(plan.runs.map((run) => run.collection)).toEqual([COUNTERS, 'usage']);
    expect(plan.runs[0]!.operations).toEqual([{ updateOne: { filter, update, upsert: true } }]);
  });

  it('moves a checkpoint forwards only, and takes a lease by the server clock with a holder that is never read as an expression', () => {
    expect(forwardCheckpoint(5n)).toEqual([{ $set: { position: { $max: [{ $ifNull: ['$position', ''] }, positionKey(5n)] } } }]);
    const pipeline = takeLease('$host:1', 3000);
    const text = JSON.stringify(pipeline);
    expect(text).toContain('"$$NOW"');
    // Every mention of the holder is a literal.
    expect(text.match(/"\$host:1"/g)!.length).toBe(text.match(/\{"\$literal":"\$host:1"\}/g)!.length);
    expect(BSON.deserialize(BSON.serialize({ u: pipeline })).u).toEqual(pipeline);
  });
});
