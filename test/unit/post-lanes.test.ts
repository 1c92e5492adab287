import { describe, expect, it } from 'vitest';
import { PostLanes } from '../../src/webhooks/post-lanes.js';

/** A task that runs until `finish` is called, noting when it started. */
function controlled(started: number[], id: number) {
  let finish!: () => void;
  const done = new Promise<void>((resolve) => (finish = resolve));
  return {
    task: async () => {
      started.push(id);
      await done;
      return id;
    },
    finish: () => finish(),
  };
}

describe('post lanes', () => {
  it('runs a lane a few at a time, starts the next one waiting as one ends, and leaves other lanes alone', async () => {
    const lanes = new PostLanes();
    const started: number[] = [];
    const tasks = [1, 2, 3, 4].map((id) => controlled(started, id));
    const results = tasks.map((t, i) => lanes.run('whe_a', 2, i + 1, t.task));
    const other = controlled(started, 9);
    const otherResult = lanes.run('whe_b', 2, 9, other.task);
    await Promise.resolve();
    expect(started).toEqual([1, 2, 9]);
    tasks[1]!.finish();
    expect(await results[1]).toBe(2);
    // The first one waiting goes in the place of the one that ended.
    await expect.poll(() => started).toEqual([1, 2, 9, 3]);
    for (const t of [tasks[0]!, tasks[2]!, tasks[3]!, other]) t.finish();
    expect(await Promise.all([...results, otherResult])).toEqual([1, 2, 3, 4, 9]);
  });

  it('never starts a task withdrawn while it waits, and withdrawing a started one changes nothing', async () => {
    const lanes = new PostLanes();
    const started: number[] = [];
    const [first, second, third] = [1, 2, 3].map((id) => controlled(started, id));
    const running = lanes.run('whe_a', 1, 1, first!.task);
    const withdrawn = lanes.run('whe_a', 1, 2, second!.task);
    const waiting = lanes.run('whe_a', 1, 3, third!.task);
    lanes.withdraw(2);
    lanes.withdraw(1);
    expect(await withdrawn).toBeUndefined();
    first!.finish();
    third!.finish();
    expect([await running, await waiting]).toEqual([1, 3]);
    expect(started).toEqual([1, 3]);
  });

  it('withdraws a task that waited its longest for room, and keeps the lane running the others', async () => {
    const lanes = new PostLanes();
    const started: number[] = [];
    const [first, second, third] = [1, 2, 3].map((id) => controlled(started, id));
    const running = lanes.run('whe_a', 1, 1, first!.task);
    const impatient = lanes.run('whe_a', 1, 2, second!.task, 5);
    const patient = lanes.run('whe_a', 1, 3, third!.task);
    expect(await impatient).toBeUndefined();
    first!.finish();
    third!.finish();
    expect([await running, await patient]).toEqual([1, 3]);
    expect(started).toEqual([1, 3]);
  });
});
