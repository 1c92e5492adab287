import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { mintKey } from '../../src/domain/api-keys.js';
import { KeyUsage } from '../../src/http/key-usage.js';
import type { KeyStore } from '../../src/ports/key-store.js';

/** Only what KeyUsage calls: markUsed, recording each batch (a failing one when told to). */
function recordingStore(failFirst = false) {
  const batches: [string, string][][] = [];
  let fail = failFirst;
  const store = {
    async markUsed(hours: ReadonlyMap<string, string>) {
      if (fail) {
        fail = false;
        throw new Error('the store is down');
      }
      batches.push([...hours]);
    },
  } as Pick<KeyStore, 'markUsed'> as KeyStore;
  return { store, batches };
}

const key = (name: string) => mintKey({ name, environment: 'test', type: 'sk', scopes: ['nature:read'] }, new Date()).record;
const at = (hour: number, minute = 0) => new Date(Date.UTC(2026, 10, 29, hour, minute));

describe("keys' last use, batched", () => {
  it('writes one hour per key however many requests it sends in that hour, then the next hour once', async () => {
    const { store, batches } = recordingStore();
    const usage = new KeyUsage(store, pino({ level: 'silent' }));
    const [a, b] = [key('a'), key('b')];
    for (let minute = 0; minute < 60; minute++) {
      usage.seen(a, at(14, minute));
      usage.seen(b, at(14, minute));
    }
    await usage.flush();
    for (let minute = 0; minute < 60; minute++) usage.seen(a, at(14, minute));
    await usage.flush();
    usage.seen(a, at(15, 1));
    await usage.flush();
    expect(batches).toEqual([
      [
        [a.id, '2026-11-29T14:00:00.000Z'],
        [b.id, '2026-11-29T14:00:00.000Z'],
      ],
      [[a.id, '2026-11-29T15:00:00.000Z']],
    ]);
  });

  it('writes nothing for a key whose record already holds the hour, and tries a failed write again with the next', async () => {
    const { store, batches } = recordingStore(true);
    const usage = new KeyUsage(store, pino({ level: 'silent' }));
    const known = { ...key('known'), last_used_at: '2026-11-29T14:00:00.000Z' };
    usage.seen(known, at(14, 30));
    const fresh = key('fresh');
    usage.seen(fresh, at(14, 30));
    await usage.flush();
    expect(batches).toEqual([]);
    await usage.flush();
    expect(batches).toEqual([[[fresh.id, '2026-11-29T14:00:00.000Z']]]);
  });
});
