import type { SubjectErased } from '../domain/subject.js';
import type { Document } from '../ports/collections.js';
import type { RecordedEvent } from '../ports/event-store.js';
import type { Projection, Reactor } from '../ports/projection.js';
import type { CounterWrite, DocumentWrite, Fence, ReadModelStore } from '../ports/read-models.js';

/** Events a handler may skip before its checkpoint is moved past them anyway. */
const IDLE_CHECKPOINT_EVERY = 500;

/** One handler's progress through the log. */
export abstract class Lane {
  /** The last event handled: committed, or skipped as none of the handler's business. */
  private at = 0n;
  /** When `position` last changed (performance.now()). */
  movedAt = performance.now();
  /** Events skipped since the last commit. */
  private skipped = 0;
  /** The lease every commit is made under, while a leader runs this lane. */
  fence: Fence | undefined;
  /** Throws FencedOffError once the lease has passed on; asked before each reaction. */
  guard: (() => Promise<void>) | undefined;
  private readonly types: ReadonlySet<string>;

  constructor(
    readonly name: string,
    canHandle: readonly string[],
    protected readonly readModels: ReadModelStore,
  ) {
    this.types = new Set(canHandle);
  }

  get position(): bigint {
    return this.at;
  }

  protected set position(position: bigint) {
    this.at = position;
    this.movedAt = performance.now();
  }

  /** Resumes from the handler's checkpoint. */
  async load(): Promise<void> {
    this.position = (await this.readModels.checkpoint(this.name)) ?? 0n;
    this.skipped = 0;
  }

  /** Handles events that follow `position`, in order. */
  abstract handle(events: RecordedEvent[], signal: AbortSignal): Promise<void>;

  /** Moves to `position`, past events with nothing to do, and commits it as the checkpoint at once. */
  async checkpointAt(position: bigint): Promise<void> {
    await this.commit(position);
  }

  /** Whether the event is the handler's business: by its type. */
  protected handles(event: RecordedEvent): boolean {
    return this.types.has(event.type);
  }

  protected async commit(position: bigint, writes: DocumentWrite[] = []): Promise<void> {
    await this.readModels.commit(this.name, position, writes, this.fence);
    this.position = position;
    this.skipped = 0;
  }

  /** Moves past `count` events with nothing to do; the checkpoint follows now and then, so a restart never re-reads the whole log. */
  protected async skipTo(position: bigint, count: number): Promise<void> {
    this.skipped += count;
    if (this.skipped >= IDLE_CHECKPOINT_EVERY) await this.commit(position);
    else this.position = position;
  }
}

export class ProjectionLane extends Lane {
  constructor(
    private readonly projection: Projection,
    readModels: ReadModelStore,
  ) {
    super(projection.name, projection.canHandle, readModels);
  }

  /** One commit for the page: every document it changes, folded in memory, with the page's last position. */
  async handle(events: RecordedEvent[]): Promise<void> {
    let due: RecordedEvent[] = [];
    let previous = this.position;
    for (const event of events) {
      if (event.type === 'SubjectErased' && this.projection.erasure !== undefined) {
        // The erasure blanks what the store holds, so what comes before it is committed first.
        if (due.length > 0) await this.commit(previous, await this.fold(due));
        due = [];
        await this.erase(event, this.projection.erasure.keep);
      } else if (this.handles(event)) due.push(event);
      previous = event.position;
    }
    if (due.length > 0) await this.commit(previous, await this.fold(due));
    else await this.skipTo(previous, events.length);
  }

  /** One write per document (the stored document evolved by each of its events in turn) and one per counter row. */
  private async fold(events: RecordedEvent[]): Promise<DocumentWrite[]> {
    const { collection } = this.projection;
    const ids = events.map((event) => this.projection.documentId(event));
    const stored = await this.readModels.getMany(collection, [...new Set(ids)]);
    const folded = new Map<string, { doc: Document | null; position: bigint }>();
    const counted = new Map<string, CounterWrite>();
    events.forEach((event, i) => {
      const id = ids[i]!;
      const current = folded.get(id);
      const version = stored.get(id);
      // The document (or its tombstone) may hold this event already: a replay after a crash, or another replica's write.
      if (current === undefined && version?.position !== undefined && event.position <= version.position) return;
      const before = current === undefined ? version?.doc : (current.doc ?? undefined);
      for (const { counter, period, key } of this.projection.counts?.(before, event) ?? []) {
        const row = `${counter}\u0000${period}\u0000${key}`;
        const write = counted.get(row);
        if (write === undefined) counted.set(row, { collection, counter, period, key, positions: [event.position] });
        else write.positions.push(event.position);
      }
      folded.set(id, { doc: this.projection.evolve(before, event), position: event.position });
    });
    // Counters first: a store without transactions writes in order, and a commit cut short after them is replayed
    // from the documents, whose events the counter rows then say they have counted already.
    return [...counted.values(), ...[...folded].map(([id, { doc, position }]) => ({ collection, id, doc, position }))];
  }

  private async erase(event: RecordedEvent, keep: readonly string[]): Promise<void> {
    const { subject_id } = event.data as SubjectErased['data'];
    await this.commit(event.position, [{ collection: this.projection.collection, where: { subject_id }, keep, set: { erased: true } }]);
    // What the erasure overwrote must not linger in the store's files.
    await this.readModels.purge();
  }
}

export class ReactorLane extends Lane {
  constructor(
    private readonly reactor: Reactor,
    readModels: ReadModelStore,
  ) {
    super(reactor.name, reactor.canHandle, readModels);
  }

  protected override handles(event: RecordedEvent): boolean {
    return super.handles(event) && (this.reactor.acts?.(event) ?? true);
  }

  /** Reacts event by event; the checkpoint follows the page, or the last reaction when stopped half-way. */
  async handle(events: RecordedEvent[], signal: AbortSignal): Promise<void> {
    let reacted = false;
    let previous = this.position;
    for (const event of events) {
      if (this.handles(event)) {
        if (signal.aborted) {
          if (reacted) await this.commit(previous);
          return;
        }
        await this.guard?.();
        await this.reactor.react(event);
        reacted = true;
      }
      previous = event.position;
    }
    if (reacted) await this.commit(previous);
    else await this.skipTo(previous, events.length);
  }
}
