import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { TurnBatch } from '../../src/support/turn-batch.js';

describe('TurnBatch', () => {
  it('hands what arrives in one turn over as one batch in the next, and what arrives after in another', async () => {
    const batches: number[][] = [];
    const queue = new TurnBatch<number>((batch) => batches.push(batch));
    queue.add(1);
    queue.add(2);
    expect(batches).toEqual([]);
    expect(queue.size).toBe(2);
    await nextTurn();
    queue.add(3);
    await nextTurn();
    expect(batches).toEqual([[1, 2], [3]]);
    expect(queue.size).toBe(0);
  });

  it('hands a batch over at once on flush, and not again when its turn comes', async () => {
    const batches: string[][] = [];
    const queue = new TurnBatch<string>((batch) => batches.push(batch));
    queue.add('a');
    queue.flush();
    expect(batches).toEqual([['a']]);
    queue.flush();
    await nextTurn();
    expect(batches).toEqual([['a']]);
  });

  it('puts what the handler adds in the next batch', async () => {
    const batches: number[][] = [];
    const queue: TurnBatch<number> = new TurnBatch<number>((batch) => {
      batches.push(batch);
      if (batch[0] === 1) queue.add(2);
    });
    queue.add(1);
    await nextTurn();
    await nextTurn();
    expect(batches).toEqual([[1], [2]]);
  });
});
