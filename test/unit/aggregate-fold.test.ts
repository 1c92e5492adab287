import { describe, expect, it, vi } from 'vitest';
import { type Aggregate, fold } from '../../src/commands/aggregate.js';
import type { RecordedEvent } from '../../src/ports/event-store.js';

type Added = { type: 'Added'; data: { n: number } };

const recorded = (revision: number, n: number): RecordedEvent & Added => ({
  id: `evt-${revision}`,
  type: 'Added',
  data: { n },
  metadata: {},
  streamName: 'sum-1',
  revision: BigInt(revision),
  position: BigInt(revision + 1),
  recordedAt: '2026-11-01T00:00:00.000Z',
});

function summing() {
  const evolve = vi.fn((total: number, event: Added) => total + event.data.n);
  const aggregate: Aggregate<number, Added> = { initial: 0, evolve, types: { Added: true } };
  return { aggregate, evolve };
}

describe('folding a stream read again', () => {
  it('evolves only the events recorded since the last fold of the same events, to the same state', () => {
    const { aggregate, evolve } = summing();
    const first = [recorded(0, 1), recorded(1, 2)];
    expect(fold(aggregate, first)).toBe(3);
    evolve.mockClear();
    expect(fold(aggregate, [...first, recorded(2, 4)])).toBe(7);
    expect(evolve).toHaveBeenCalledTimes(1);
  });

  it('folds in full what is not a stream from its start, though it holds events folded before', () => {
    const { aggregate, evolve } = summing();
    const stream = [recorded(0, 1), recorded(1, 2)];
    expect(fold(aggregate, stream)).toBe(3);
    evolve.mockClear();
    expect(fold(aggregate, [stream[1]!])).toBe(2);
    expect(fold(aggregate, [recorded(0, 10), stream[1]!])).toBe(12);
    expect(evolve).toHaveBeenCalledTimes(3);
  });

  it('keeps the states of each aggregate apart', () => {
    const sum = summing();
    const count: Aggregate<number, Added> = { initial: 0, evolve: (total) => total + 1, types: { Added: true } };
    const stream = [recorded(0, 5), recorded(1, 5)];
    expect(fold(sum.aggregate, stream)).toBe(10);
    expect(fold(count, stream)).toBe(2);
  });
});
