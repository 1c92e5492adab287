import { randomUUID } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresEventStore } from '../../src/adapters/postgres/event-store.js';
import { isPostgresUnavailable } from '../../src/adapters/postgres/unavailable.js';
import { type NewEvent, type RecordedEvent, WrongExpectedRevisionError } from '../../src/ports/event-store.js';
import { postgresBinDir, sharedPostgres } from '../support/postgres-cluster.js';

const shared = sharedPostgres();
afterAll(() => shared.stopShared());

const event = (type = 'Happened', data: unknown = { n: 1 }): NewEvent => ({ id: randomUUID(), type, data, metadata: {} });
let schemas = 0;
const newSchema = () => `log_${++schemas}`;

/** Collects what a subscription yields until an event `until` accepts has come (that one included). */
async function collect(store: PostgresEventStore, until: (event: RecordedEvent, seen: number) => boolean): Promise<RecordedEvent[]> {
  const controller = new AbortController();
  const seen: RecordedEvent[] = [];
  for await (const recorded of store.subscribeToAll({ signal: controller.signal })) {
    seen.push(recorded);
    if (until(recorded, seen.length)) controller.abort();
  }
  return seen;
}

describe.skipIf(postgresBinDir === undefined)('postgres event store', () => {
  it('gives a reader racing many appenders on their own connections every event once, in position order', async () => {
    const url = await shared.database();
    const schema = newSchema();
    const appenders = Array.from({ length: 8 }, () => new PostgresEventStore(url, schema, { max: 4 }));
    const reader = new PostgresEventStore(url, schema, { pollIntervalMs: 3_600_000 });
    const perAppender = 60;
    // Each appender runs four appends at a time of one to three events each: 8 × 4 transactions contend at once.
    const sizes = appenders.map((_, a) => Array.from({ length: perAppender }, (_, i) => 1 + ((a + i) % 3)));
    const total = sizes.flat().reduce((sum, size) => sum + size, 0);
    // Until the end mark appended after all the others: a reader that skipped an event fails on the comparison, not on a wait.
    const seen = collect(reader, (e) => e.type === 'End');
    await Promise.all(
      appenders.map(async (store, a) => {
        for (let i = 0; i < perAppender; i += 4) {
          await Promise.all(
            sizes[a]!.slice(i, i + 4).map((size, j) =>
              store.appendToStream(
                `racer-${a}-${i + j}`,
                Array.from({ length: size }, () => event()),
                'no_stream',
              ),
            ),
          );
        }
      }),
    );
    await appenders[0]!.appendToStream('end', [event('End')], 'no_stream');
    const log = await reader.readAll({ limit: total + 2 });
    expect(log).toHaveLength(total + 1);
    const read = await seen;
    expect(read.map((e) => e.id)).toEqual(log.map((e) => e.id));
    expect(new Set(read.map((e) => e.id)).size).toBe(total + 1);
    for (let i = 1; i < read.length; i += 1) expect(read[i]!.position).toBeGreaterThan(read[i - 1]!.position);
    await Promise.all([...appenders, reader].map((store) => store.close()));
  });

  it('wakes a subscriber of another process by NOTIFY, without waiting for a poll', async () => {
    const url = await shared.database();
    const schema = newSchema();
    const subscriber = new PostgresEventStore(url, schema, { pollIntervalMs: 3_600_000 });
    const writer = new PostgresEventStore(url, schema);
    const seen = collect(subscriber, (_, count) => count === 2);
    await writer.appendToStream('s', [event('One')], 'no_stream');
    await writer.appendToStream('s', [event('Two')], 0n);
    expect((await seen).map((e) => e.type)).toEqual(['One', 'Two']);
    await Promise.all([subscriber.close(), writer.close()]);
  });

  it('lands all of a unit or none of it: a conflict on its last stream undoes its first', async () => {
    const store = new PostgresEventStore(await shared.database(), newSchema());
    await store.appendToStream('taken', [event()], 'no_stream');
    await expect(
      store.appendToStreams([
        { streamName: 'undone', events: [event(), event()], expected: 'no_stream' },
        { streamName: 'taken', events: [event()], expected: 'no_stream' },
      ]),
    ).rejects.toBeInstanceOf(WrongExpectedRevisionError);
    expect((await store.readStream('undone')).revision).toBe(-1n);
    expect((await store.readAll({ limit: 10 })).map((e) => e.streamName)).toEqual(['taken']);
    await store.close();
  });

  it('commits units that come together in one transaction, each landing or refused on its own', async () => {
    const url = await shared.database();
    const schema = newSchema();
    const store = new PostgresEventStore(url, schema);
    await store.appendToStream('taken', [event()], 'no_stream');
    // Sent in one turn: the first commits alone, the others wait for it and then share one transaction.
    const outcomes = await Promise.allSettled(
      Array.from({ length: 24 }, (_, i) =>
        i % 3 === 0
          ? store.appendToStreams([
              { streamName: `undone-${i}`, events: [event()], expected: 'no_stream' },
              { streamName: 'taken', events: [event()], expected: 'no_stream' },
            ])
          : store.appendToStream(`new-${i}`, [event(), event()], 'no_stream'),
      ),
    );
    const refused = outcomes.flatMap((outcome, i) => (outcome.status === 'rejected' ? [i] : []));
    expect(refused).toEqual(Array.from({ length: 8 }, (_, k) => k * 3));
    for (const i of refused) expect((outcomes[i] as PromiseRejectedResult).reason).toBeInstanceOf(WrongExpectedRevisionError);
    // Nothing of a refused unit landed, everything of the others did, in fewer transactions than units.
    const log = await store.readAll({ limit: 100 });
    expect(log.filter((e) => e.streamName.startsWith('undone-'))).toEqual([]);
    expect(log.filter((e) => e.streamName.startsWith('new-'))).toHaveLength(32);
    const direct = postgres(url, { max: 1, connection: { search_path: schema }, onnotice: () => undefined });
    const [row] = await direct<{ n: number }[]>`SELECT count(DISTINCT xmin::text)::int AS n FROM events WHERE stream_name LIKE 'new-%'`;
    expect(row?.n).toBeLessThan(16);
    await direct.end();
    await store.close();
  });

  it('refuses ids used elsewhere in the log, and data that is not JSON, landing nothing of either', async () => {
    const store = new PostgresEventStore(await shared.database(), newSchema());
    const used = event();
    await store.appendToStream('owner', [used], 'no_stream');
    await expect(store.appendToStream('borrower', [event(), used], 'no_stream')).rejects.toThrow(/already used elsewhere/);
    const twice = event();
    await expect(store.appendToStream('duplicated', [twice, twice], 'no_stream')).rejects.not.toBeInstanceOf(WrongExpectedRevisionError);
    await expect(store.appendToStream('unserialisable', [event('Bad', { n: 1n })], 'no_stream')).rejects.toThrow(/BigInt/);
    expect((await store.readAll({ limit: 10 })).map((e) => e.streamName)).toEqual(['owner']);
    await store.close();
    await expect(store.appendToStream('late', [event()], 'no_stream')).rejects.toThrow(/closed/);
  });

  it('keeps the log append-only: an update, a delete or a truncate is refused by the server', async () => {
    const url = await shared.database();
    const schema = newSchema();
    const store = new PostgresEventStore(url, schema);
    await store.appendToStream('s', [event()], 'no_stream');
    const direct = postgres(url, { max: 1, connection: { search_path: schema } });
    await expect(direct`UPDATE events SET type = 'Changed'`).rejects.toThrow(/append-only/);
    await expect(direct`DELETE FROM events`).rejects.toThrow(/append-only/);
    await expect(direct`TRUNCATE events`).rejects.toThrow(/append-only/);
    await direct.end();
    expect((await store.readStream('s')).events.map((e) => e.type)).toEqual(['Happened']);
    await store.close();
  });

  it('keeps each schema its own log: sandbox and production apart on one database', async () => {
    const url = await shared.database();
    const [sandbox, production] = [new PostgresEventStore(url, newSchema()), new PostgresEventStore(url, newSchema())];
    await sandbox.appendToStream('s', [event('InSandbox')], 'no_stream');
    expect(await production.readAll({ limit: 10 })).toEqual([]);
    expect((await production.appendToStream('s', [event()], 'no_stream')).nextRevision).toBe(0n);
    await Promise.all([sandbox.close(), production.close()]);
  });
  it('fails an append the server leaves unanswered as unavailable, and takes appends again once it answers', async () => {
    const url = await shared.database();
    const schema = newSchema();
    const store = new PostgresEventStore(url, schema, { answerWithinMs: 300 });
    await store.appendToStream('before', [event()], 'no_stream');
    // Another session holds the log's lock (event-store.ts, APPEND_LOCK 'nlog'), as a commit held by a gone
    // synchronous standby would: the append waits for it.
    const holder = postgres(url, { max: 1, onnotice: () => undefined });
    await holder`SELECT pg_advisory_lock(${0x6e_6c_6f_67}, hashtext(${schema}))`;
    // The second comes while the first commits, so it waits for the next commit: it is answered too.
    const outcomes = await Promise.all(
      ['held', 'queued'].map((stream) => store.appendToStream(stream, [event()], 'no_stream').catch((error: unknown) => error)),
    );
    for (const outcome of outcomes) expect(isPostgresUnavailable(outcome), String(outcome)).toBe(true);
    await holder`SELECT pg_advisory_unlock_all()`;
    await holder.end();
    expect((await store.appendToStream('after', [event()], 'no_stream')).nextRevision).toBe(0n);
    // What was left unanswered may still land (a retry with the same Idempotency-Key then finds it), once each.
    const streams = (await store.readAll({ limit: 10 })).map((e) => e.streamName);
    expect(streams.slice(0, 1)).toEqual(['before']);
    expect(streams).toContain('after');
    expect(new Set(streams).size).toBe(streams.length);
    await store.close();
  });
});
