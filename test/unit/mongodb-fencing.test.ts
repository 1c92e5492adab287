import { describe, expect, it } from 'vitest';
import { commitPlan, fenceHold, forwardCheckpoint, guardedReplace, toStored } from '../../src/adapters/mongodb/documents.js';

const fence = { lease: 'leader', token: 7 };

describe('MongoDB fenced commits (no server)', () => {
  it('opens a fenced commit with a write of the lease that matches its token only', () => {
    const { filter, update } = fenceHold(fence);
    expect(filter).toEqual({ _id: 'leader', token: 7 });
    // A real change of the lease document: a no-op ($set to the same value) writes nothing and conflicts with no takeover.
    expect(update).toEqual({ $inc: { commits: 1 } });
  });

  it('holds the fence for every fenced commit, a checkpoint alone included', () => {
    expect(commitPlan('projected', 9n, [], fence)).toEqual({
      fence: fenceHold(fence),
      runs: [],
      checkpoint: { filter: { _id: 'projected' }, update: forwardCheckpoint(9n) },
    });
    expect(commitPlan('projected', 9n, [], undefined).fence).toBeUndefined();
  });

  it('writes the documents in order, one run per stretch of writes to the same collection, before the checkpoint', () => {
    const plan = commitPlan(
      'p',
      5n,
      [
        { collection: 'things', id: 'a', doc: { id: 'a' } },
        { collection: 'things', id: 'b', doc: { id: 'b' }, position: 4n },
        { collection: 'others', id: 'c', doc: null },
        { collection: 'things', id: 'a', doc: { id: 'a', n: 2 } },
      ],
      fence,
    );
    expect(plan.runs.map((run) => [run.collection, run.operations.length])).toEqual([
      ['things', 2],
      ['others', 1],
      ['things', 1],
    ]);
    expect(plan.runs[0]!.operations[1]).toEqual({
      updateOne: { filter: { _id: 'b' }, update: guardedReplace(toStored({ id: 'b' }, 4n)), upsert: true },
    });
    expect(plan.checkpoint.update).toEqual(forwardCheckpoint(5n));
  });
});
