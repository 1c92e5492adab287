import { type AppendResult, type RecordedEvent, WrongExpectedRevisionError } from '../../ports/event-store.js';
import { type EncodedAppend, previousAppend, revisionMatches, type StoredId } from '../append-rules.js';
import type { Sql, TransactionSql } from './client.js';

/** What one stream's append will do, decided before anything of its unit is written. */
type Plan = { replay: AppendResult } | { current: bigint };

/**
 * One unit's appends under the log's lock, in a transaction other units may share (the log's group commit): every
 * append is checked first (a retried request's events found, the expected revision met), so a unit that fails
 * throws before it writes anything and leaves the transaction to the others; then its events are inserted. The
 * events inserted are added to `inserted`, as the log records them (a replay inserts none).
 */
export async function appendUnit(tx: TransactionSql, unit: readonly EncodedAppend[], inserted: RecordedEvent[]): Promise<AppendResult[]> {
  const plans: Plan[] = [];
  for (const append of unit) plans.push(await planOf(tx, append));
  const results: AppendResult[] = [];
  for (const [i, plan] of plans.entries())
    results.push('replay' in plan ? plan.replay : await insert(tx, unit[i]!, plan.current, inserted));
  return results;
}

async function planOf(tx: TransactionSql, { streamName, events, expected }: EncodedAppend): Promise<Plan> {
  const replay = await appendedBefore(tx, streamName, events);
  if (replay) return { replay };
  const current = await streamRevision(tx, streamName);
  if (!revisionMatches(expected, current)) throw new WrongExpectedRevisionError(streamName, expected, current);
  return { current };
}

/** The revision of the stream's last event, -1n when there is none. */
export async function streamRevision(sql: Sql | TransactionSql, streamName: string): Promise<bigint> {
  const [row] = await sql<
    { revision: bigint | null }[]
  >`SELECT max(stream_revision) AS revision FROM events WHERE stream_name = ${streamName}`;
  return row?.revision ?? -1n;
}

/** One stream's events after revision `current`, read under the log's lock after every append before it committed. */
async function insert(
  tx: TransactionSql,
  { streamName, events }: EncodedAppend,
  current: bigint,
  inserted: RecordedEvent[],
): Promise<AppendResult> {
  // One statement for the whole append; ORDER BY n draws the positions in the order the events were given.
  const rows = await tx<{ position: bigint; stream_revision: bigint; recorded_at: Date }[]>`
    INSERT INTO events (event_id, stream_name, stream_revision, type, data, metadata)
    SELECT e.id, ${streamName}, ${current.toString()}::bigint + e.n, e.type, e.data::json, e.metadata::json
    FROM unnest(${events.map((e) => e.id)}::text[], ${events.map((e) => e.type)}::text[],
                ${events.map((e) => e.data)}::text[], ${events.map((e) => e.metadata)}::text[])
         WITH ORDINALITY AS e(id, type, data, metadata, n)
    ORDER BY e.n
    RETURNING position, stream_revision, recorded_at`;
  for (const row of [...rows].sort((a, b) => (a.position < b.position ? -1 : 1))) {
    const event = events[Number(row.stream_revision - current) - 1]!;
    inserted.push({
      id: event.id,
      streamName,
      revision: row.stream_revision,
      position: row.position,
      type: event.type,
      data: JSON.parse(event.data) as unknown,
      metadata: JSON.parse(event.metadata) as RecordedEvent['metadata'],
      recordedAt: row.recorded_at.toISOString(),
    });
  }
  const last = rows.reduce((a, b) => (b.position > a.position ? b : a));
  return { nextRevision: last.stream_revision, position: last.position };
}

/** The first append of these event ids, when a retried request brings them again (append-rules.ts). */
async function appendedBefore(tx: TransactionSql, streamName: string, events: { id: string }[]): Promise<AppendResult | undefined> {
  const found = await tx<(StoredId & { event_id: string })[]>`
    SELECT event_id, stream_name, stream_revision, position FROM events WHERE event_id = ANY(${events.map((e) => e.id)}::text[])`;
  if (found.length === 0) return undefined;
  const byId = new Map(found.map((row) => [row.event_id, row]));
  return previousAppend(
    streamName,
    events.map((event) => byId.get(event.id)),
  );
}
