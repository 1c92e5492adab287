import type { RecordedEvent } from '../../ports/event-store.js';

/** A row of the log's `events` table as the driver reads it (json parsed, int8 as bigint). */
export interface EventRow {
  position: bigint;
  event_id: string;
  stream_name: string;
  stream_revision: bigint;
  type: string;
  data: unknown;
  metadata: RecordedEvent['metadata'];
  recorded_at: Date;
}

export const EVENT_COLUMNS = ['position', 'event_id', 'stream_name', 'stream_revision', 'type', 'data', 'metadata', 'recorded_at'];

export function toRecorded(row: EventRow): RecordedEvent {
  return {
    id: row.event_id,
    streamName: row.stream_name,
    revision: row.stream_revision,
    position: row.position,
    type: row.type,
    data: row.data,
    metadata: row.metadata,
    recordedAt: row.recorded_at.toISOString(),
  };
}
