import { EventStoreDBClient, type Position, UnavailableError } from '@eventstore/db-client';
import { describe, expect, it } from 'vitest';
import { filteredReadRequest, readAllFiltered, readEvents } from '../../src/adapters/eventstoredb/filtered-read.js';
import { encodePosition, type StoredEvent } from '../../src/adapters/eventstoredb/mapping.js';
import { serverVersion } from '../../src/adapters/eventstoredb/server-version.js';
import { freePort } from '../support/processes.js';
import { storedEvent } from '../support/stored-events.js';

describe('EventStoreDB reads of $all (no server)', () => {
  it("asks the server for this environment's streams only, from a position, up to a count", () => {
    const options = filteredReadRequest('sandbox.', { commit: 5000n, prepare: 4990n }, 501).toObject().options!;
    expect(options.filter?.streamIdentifier?.prefixList).toEqual(['sandbox.']);
    expect(options.filter?.streamIdentifier?.regex).toBe('');
    expect(options.filter?.eventType).toBeUndefined();
    expect(options.filter?.count).toEqual({});
    expect(options.noFilter).toBeUndefined();
    expect(options.all?.position).toEqual({ commitPosition: '5000', preparePosition: '4990' });
    expect(options.count).toBe('501');
    expect(options.readDirection).toBe(0);
    expect(options.resolveLinks).toBe(false);
    // Not a subscription: the read ends at the end of the log.
    expect(options.subscription).toBeUndefined();
  });

  it("goes through the client's own connection and its error conversion: with nothing listening, an UnavailableError as its reads give", async () => {
    const client = EventStoreDBClient.connectionString(`esdb://127.0.0.1:${await freePort()}?tls=false`);
    try {
      const read = async () => {
        for await (const _ of readAllFiltered(client, 'sandbox.', undefined, 10)) throw new Error('nothing listens, yet an event came');
      };
      await expect(read()).rejects.toBeInstanceOf(UnavailableError);
      // The server version comes the same way (the client's protected capabilities): a refusal, not a TypeError.
      await expect(serverVersion(client)).rejects.toThrow(/UNAVAILABLE/);
    } finally {
      await client.dispose();
    }
  });

  it('reads from the start of the log when there is no position, and keeps positions past 2^53 exact', () => {
    expect(filteredReadRequest('production.', undefined, 1).toObject().options!.all?.start).toEqual({});
    const far = 2n ** 60n + 3n;
    expect(filteredReadRequest('production.', { commit: far, prepare: far - 1n }, 1).toObject().options!.all?.position).toEqual({
      commitPosition: far.toString(),
      preparePosition: (far - 1n).toString(),
    });
  });
});

describe("EventStoreDB readAll over the server's filtered reads (no server)", () => {
  const stored = (commit: bigint, type = 'Happened'): StoredEvent => storedEvent(commit, { type, streamId: 'sandbox.s' });
  const at = (commit: bigint) => encodePosition({ commit, prepare: commit });

  /** The server's answer to filtered reads of `log` (our streams only), as it gives it: from a position inclusive, up to a count. */
  function server(log: StoredEvent[]) {
    const reads: { from?: bigint; maxCount: number }[] = [];
    const read = async function* (from: Position | undefined, maxCount: number) {
      reads.push({ ...(from !== undefined && { from: from.commit }), maxCount });
      yield* log
        .filter((event) => from === undefined || encodePosition(event.position!) >= encodePosition(from))
        .slice(0, maxCount)
        .map((event) => ({ event }));
    };
    return { read, reads };
  }

  it('reads after a position, exclusive, up to a limit, in one read', async () => {
    const { read, reads } = server([stored(10n), stored(20n), stored(30n), stored(40n)]);
    const events = await readEvents(read, 'sandbox.', { after: at(20n), limit: 2 });
    expect(events.map((event) => [event.id, event.streamName])).toEqual([
      ['e-30', 's'],
      ['e-40', 's'],
    ]);
    expect(reads).toEqual([{ from: 20n, maxCount: 3 }]);
  });

  it('reads from the start, and answers fewer than the limit at the end of the log', async () => {
    const { read, reads } = server([stored(10n), stored(20n)]);
    expect((await readEvents(read, 'sandbox.', { limit: 5 })).map((event) => event.id)).toEqual(['e-10', 'e-20']);
    expect(reads).toEqual([{ maxCount: 6 }]);
  });

  it("passes over a deleted stream's tombstone and reads on, so a short answer still means the end of the log", async () => {
    const { read, reads } = server([stored(10n), stored(20n, '$streamDeleted'), stored(30n), stored(40n), stored(50n)]);
    expect((await readEvents(read, 'sandbox.', { after: at(10n), limit: 3 })).map((event) => event.id)).toEqual(['e-30', 'e-40', 'e-50']);
    expect(reads).toEqual([
      { from: 10n, maxCount: 4 },
      { from: 40n, maxCount: 2 },
    ]);
  });
});
