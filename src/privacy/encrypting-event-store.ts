import type { DataKeyStore } from '../ports/data-keys.js';
import type {
  AppendResult,
  EventStore,
  ExpectedRevision,
  NewEvent,
  ReadAllOptions,
  RecordedEvent,
  StreamAppend,
  StreamRead,
  SubscribeOptions,
} from '../ports/event-store.js';
import { isEnvelope, open, seal } from './pii-envelope.js';

/** Events with personal data carry it under `pii`, beside the `subject_id` whose key protects it. */
interface PersonalData {
  subject_id: string;
  pii: unknown;
}

function personal(data: unknown): data is PersonalData {
  return typeof data === 'object' && data !== null && 'pii' in data && data.pii !== null && data.pii !== undefined;
}

/**
 * The event types whose personal data anything reads back from the log: decisions (an erasure needs the
 * external id, scoring and rescoring the answers) and the audit. A profile's scores are read from the read
 * models, which keep them sealed, so a ScoringCompleted or ProfileRescored read from the log keeps its `pii`
 * sealed: a rebuild's rescoring opens the answers and nothing else.
 */
export const OPENED_FROM_LOG: ReadonlySet<string> = new Set(['SubjectCreated', 'ResponsesSubmitted']);

/**
 * The log as the rest of the service sees it: `pii` is sealed with the subject's data key on the way in and,
 * for the event types in `opened`, opened on the way out; once the key is destroyed it reads as null. Works
 * over any event store adapter.
 */
export class EncryptingEventStore implements EventStore {
  constructor(
    private readonly inner: EventStore,
    private readonly keys: DataKeyStore,
    private readonly opened: ReadonlySet<string> = OPENED_FROM_LOG,
  ) {}

  async appendToStream(streamName: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return this.inner.appendToStream(streamName, await Promise.all(events.map((event) => this.sealEvent(event))), expected);
  }

  async appendToStreams(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    const sealed = await Promise.all(
      appends.map(async (append) => ({ ...append, events: await Promise.all(append.events.map((event) => this.sealEvent(event))) })),
    );
    return this.inner.appendToStreams(sealed);
  }

  /** Throws SubjectErasedError for a subject whose key is gone: nothing personal is written for it again. */
  private async sealEvent(event: NewEvent): Promise<NewEvent> {
    const data = event.data;
    if (!personal(data) || isEnvelope(data.pii)) return event;
    if (typeof data.subject_id !== 'string') throw new Error(`${event.type} carries pii without a subject_id`);
    const key = await this.keys.keyFor(data.subject_id);
    return { ...event, data: { ...data, pii: seal(key, data.pii, data.subject_id, event.id) } };
  }

  async readStream(streamName: string): Promise<StreamRead> {
    const read = await this.inner.readStream(streamName);
    return { revision: read.revision, events: await Promise.all(read.events.map((event) => this.openEvent(event))) };
  }

  async readAll(options: ReadAllOptions): Promise<RecordedEvent[]> {
    return Promise.all((await this.inner.readAll(options)).map((event) => this.openEvent(event)));
  }

  async *subscribeToAll(options: SubscribeOptions): AsyncIterable<RecordedEvent> {
    for await (const event of this.inner.subscribeToAll(options)) yield await this.openEvent(event);
  }

  private async openEvent(event: RecordedEvent): Promise<RecordedEvent> {
    const data = event.data;
    if (!this.opened.has(event.type) || !personal(data) || !isEnvelope(data.pii)) return event;
    const key = await this.keys.find(data.subject_id);
    const pii = key === undefined ? null : open(key, data.pii, data.subject_id, event.id);
    return { ...event, data: { ...data, pii } };
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
