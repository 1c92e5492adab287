import type { DataKeyStore } from '../ports/data-keys.js';
import type {
  AppendResult,
  EventStore,
  ExpectedRevision,
  NewEvent,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  StreamAppend,
  StreamRead,
  SubscribeOptions,
} from '../ports/event-store.js';
import type { OpenedStream, OpenedStreamCache } from './opened-streams.js';
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
 * sealed: a rebuild's rescoring opens the answers and nothing else. A situation's text is opened for the leader to read it.
 */
export const OPENED_FROM_LOG: ReadonlySet<string> = new Set(['SubjectCreated', 'ResponsesSubmitted', 'SituationalAssessmentRequested']);

/** An event whose personal data is held opened: read from the log with its subject's key. */
function holdsOpened(event: RecordedEvent): event is RecordedEvent & { data: PersonalData } {
  return OPENED_FROM_LOG.has(event.type) && personal(event.data) && !isEnvelope(event.data.pii);
}

/**
 * The event types an erasure fences off before it destroys the subject's key: each is only ever appended at
 * the revision its command read, to a stream the erasure appends to first. SubjectCreated goes to the
 * subject's stream, where SubjectErased goes; ResponsesSubmitted (and the scoring appended with the last
 * answers) to an open assessment, which the erasure closes (closeForErasure). So an append carrying one was
 * decided either after the erasure's append, and refused, or before it, and conflicts at its revision: a
 * data key served from the cache, even one another process has destroyed since, never seals an event that
 * lands. One gap, already there between a store's answer and the commit: an assessment past its expiry is
 * not closed, and a replica whose clock lags may still take a batch on it (its data sealed with a destroyed
 * key, unreadable). Other appends (a rescoring of a completed assessment, a scoring the erasure leaves be)
 * ask the store for the key.
 */
const FENCED_BY_ERASURE: ReadonlySet<string> = new Set(['SubjectCreated', 'ResponsesSubmitted']);

/**
 * The log as the rest of the service sees it: `pii` is sealed with the subject's data key on the way in and,
 * for the event types in OPENED_FROM_LOG, opened on the way out; once the key is destroyed it reads as null.
 * Works over any event store adapter. With a `cache`, a stream read again is read from the revision after
 * the one kept, and only the events appended since are opened.
 */
export class EncryptingEventStore implements EventStore {
  constructor(
    private readonly inner: EventStore,
    private readonly keys: DataKeyStore,
    private readonly cache?: OpenedStreamCache,
  ) {}

  async appendToStream(streamName: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    return this.inner.appendToStream(streamName, await this.sealAll(events), expected);
  }

  async appendToStreams(appends: readonly StreamAppend[]): Promise<AppendResult[]> {
    return this.inner.appendToStreams(
      await Promise.all(appends.map(async (append) => ({ ...append, events: await this.sealAll(append.events) }))),
    );
  }

  /** One stream's events sealed; the key comes from the cache when the append carries an event the erasure fences off. */
  private sealAll(events: NewEvent[]): Promise<NewEvent[]> {
    const cachedKey = events.some((event) => FENCED_BY_ERASURE.has(event.type));
    return Promise.all(events.map((event) => this.sealEvent(event, cachedKey)));
  }

  /** Throws SubjectErasedError for a subject whose key is gone: nothing personal is written for it again. */
  private async sealEvent(event: NewEvent, cachedKey: boolean): Promise<NewEvent> {
    const data = event.data;
    if (!personal(data) || isEnvelope(data.pii)) return event;
    if (typeof data.subject_id !== 'string') throw new Error(`${event.type} carries pii without a subject_id`);
    const key = await this.keys.keyFor(data.subject_id, { cached: cachedKey });
    return { ...event, data: { ...data, pii: seal(key, data.pii, data.subject_id, event.id) } };
  }

  async readStream(streamName: string, options: ReadStreamOptions = {}): Promise<StreamRead> {
    if (this.cache === undefined || options.fromRevision !== undefined) return this.readOpened(streamName, options);
    const kept = await this.stillReadable(streamName, this.cache.get(streamName));
    if (kept === undefined) return this.keep(streamName, await this.readOpened(streamName), undefined);
    const tail = await this.readOpened(streamName, { fromRevision: kept.revision + 1n });
    if (BigInt(tail.events.length) !== tail.revision - kept.revision) {
      // Not the events after the kept ones (the stream was deleted or truncated outside the service): read afresh.
      this.cache.delete(streamName);
      return this.readStream(streamName);
    }
    return this.keep(streamName, tail, kept);
  }

  /**
   * The kept stream, unless it holds personal data of a subject whose key is gone: one erased by another
   * process, seen here within the key cache's lifetime, as any read of the log sees it.
   */
  private async stillReadable(streamName: string, kept: OpenedStream | undefined): Promise<OpenedStream | undefined> {
    if (kept === undefined) return undefined;
    for (const subjectId of kept.subjects) {
      if ((await this.keys.find(subjectId)) !== undefined) continue;
      this.cache?.delete(streamName);
      return undefined;
    }
    return kept;
  }

  /** The kept stream followed by the events read after it, kept together; a copy of the list for the caller. */
  private keep(streamName: string, read: StreamRead, kept: OpenedStream | undefined): StreamRead {
    const events = kept === undefined ? read.events : [...kept.events, ...read.events];
    const subjects = new Set(kept?.subjects);
    for (const event of read.events) if (holdsOpened(event)) subjects.add(event.data.subject_id);
    this.cache?.set(streamName, { revision: read.revision, events, subjects });
    return { revision: read.revision, events: events.slice() };
  }

  private async readOpened(streamName: string, options?: ReadStreamOptions): Promise<StreamRead> {
    const read = await this.inner.readStream(streamName, options);
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
    if (!OPENED_FROM_LOG.has(event.type) || !personal(data) || !isEnvelope(data.pii)) return event;
    const key = await this.keys.find(data.subject_id);
    const pii = key === undefined ? null : open(key, data.pii, data.subject_id, event.id);
    return { ...event, data: { ...data, pii } };
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  close(): Promise<void> {
    this.cache?.clear();
    return this.inner.close();
  }
}
