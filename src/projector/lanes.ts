import type { Document } from '../ports/collections.js';
import type { RecordedEvent } from '../ports/event-store.js';
import type { Projection, Reactor, Sweep } from '../ports/projection.js';
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

/**
 * What a projection has folded and not committed yet, from the log up to `position`: each document it changed at
 * its newest version, and each counter row with the events it counts.
 */
export class Fold {
  readonly docs = new Map<string, { doc: Document | null; position: bigint }>();
  readonly counted = new Map<string, CounterWrite>();
  /** Events of the projection's types folded (those its documents already held included): they call for a commit. */
  handled = 0;
  constructor(public position: bigint) {}
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
    const fold = await this.take(events, new Fold(this.position));
    if (fold.handled > 0) await this.commitFold(fold);
    else await this.skipTo(fold.position, events.length);
  }

  /**
   * Folds the events after `fold.position` into `fold`, the stored documents read once each. A sweep (an erasure)
   * writes over what the store holds, so what comes before it is committed first: the fold that comes back is then
   * a new one.
   */
  async take(events: RecordedEvent[], fold: Fold): Promise<Fold> {
    let due: RecordedEvent[] = [];
    for (const event of events) {
      if (event.position <= fold.position) continue;
      const sweep = this.projection.sweep?.(event);
      if (sweep !== undefined) {
        await this.absorb(due, fold);
        due = [];
        if (fold.handled > 0) await this.commitFold(fold);
        await this.commitSweep(event.position, sweep);
        fold = new Fold(event.position);
        continue;
      }
      if (this.handles(event)) due.push(event);
      fold.position = event.position;
    }
    await this.absorb(due, fold);
    return fold;
  }

  /** Commits what `fold` holds with its position as the checkpoint, and empties it. */
  async commitFold(fold: Fold): Promise<void> {
    const { collection } = this.projection;
    // Counters first: a store without transactions writes in order, and a commit cut short after them is replayed
    // from the documents, whose events the counter rows then say they have counted already.
    const writes: DocumentWrite[] = [...fold.counted.values()];
    for (const [id, { doc, position }] of fold.docs) writes.push({ collection, id, doc, position });
    await this.commit(fold.position, writes);
    fold.docs.clear();
    fold.counted.clear();
    fold.handled = 0;
  }

  /** Each event evolves its document (as folded, or as stored) and adds to its counter rows. */
  private async absorb(events: RecordedEvent[], fold: Fold): Promise<void> {
    if (events.length === 0) return;
    fold.handled += events.length;
    const { collection } = this.projection;
    const ids = events.map((event) => this.projection.documentId(event));
    const stored = await this.readModels.getMany(collection, [...new Set(ids.filter((id) => !fold.docs.has(id)))]);
    events.forEach((event, i) => {
      const id = ids[i]!;
      const current = fold.docs.get(id);
      const version = stored.get(id);
      // The document (or its tombstone) may hold this event already: a replay after a crash, or another replica's write.
      if (current === undefined && version?.position !== undefined && event.position <= version.position) return;
      const before = current === undefined ? version?.doc : (current.doc ?? undefined);
      for (const { counter, period, key } of this.projection.counts?.(before, event) ?? []) {
        const row = `${counter}\u0000${period}\u0000${key}`;
        const write = fold.counted.get(row);
        if (write === undefined) fold.counted.set(row, { collection, counter, period, key, positions: [event.position] });
        else write.positions.push(event.position);
      }
      fold.docs.set(id, { doc: this.projection.evolve(before, event), position: event.position });
    });
  }

  private async commitSweep(position: bigint, { where, keep, set }: Sweep): Promise<void> {
    await this.commit(position, [{ collection: this.projection.collection, where, keep, set }]);
    // What the sweep overwrote (an erasure's personal data) must not linger in the store's files.
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
    if (this.reactor.reactAll !== undefined) return this.handleAll(events, signal, this.reactor.reactAll);
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

  /** The page's reactions in one call, then its checkpoint. */
  private async handleAll(
    events: RecordedEvent[],
    signal: AbortSignal,
    reactAll: (events: RecordedEvent[]) => Promise<void>,
  ): Promise<void> {
    const last = events.at(-1)?.position ?? this.position;
    const acting = events.filter((event) => this.handles(event));
    if (acting.length === 0) return this.skipTo(last, events.length);
    if (signal.aborted) return;
    await this.guard?.();
    await reactAll(acting);
    await this.commit(last);
  }
}
