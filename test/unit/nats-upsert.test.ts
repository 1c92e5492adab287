import { describe, expect, it } from 'vitest';
import { upsert } from '../../src/adapters/nats/upsert.js';

const notFound = () => Promise.reject(new Error('stream not found'));
const overlap = () => Promise.reject(new Error('subjects overlap with an existing stream'));

describe('declaring a stream another replica is declaring at the same moment', () => {
  it('looks again after its add is refused, and updates what the other replica made', async () => {
    const calls: string[] = [];
    let made = false;
    await upsert(
      () => {
        calls.push('look');
        return made ? Promise.resolve() : notFound();
      },
      () => {
        calls.push('update');
        return Promise.resolve();
      },
      // The other replica's stream is being made: ours is refused, and theirs is there a moment later.
      () => {
        calls.push('add');
        made = true;
        return overlap();
      },
    );
    expect(calls).toEqual(['look', 'add', 'look', 'update']);
  });

  it('gives up with the server’s reason when the add is refused every time', async () => {
    let adds = 0;
    await expect(
      upsert(
        notFound,
        () => Promise.resolve(),
        () => {
          adds++;
          return overlap();
        },
      ),
    ).rejects.toThrow(/subjects overlap/);
    expect(adds).toBe(5);
  });

  it('does not add what it could not look up for another reason', async () => {
    let adds = 0;
    await expect(
      upsert(
        () => Promise.reject(new Error('timeout')),
        () => Promise.resolve(),
        () => {
          adds++;
          return Promise.resolve();
        },
      ),
    ).rejects.toThrow('timeout');
    expect(adds).toBe(0);
  });
});
