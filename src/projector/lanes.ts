import type { RecordedEvent } from '../ports/event-store.js';
import type { Projection, Reactor, Sweep } from '../ports/projection.js';
import type { DocumentWrite, Fence, ReadModelStore } from '../ports/read-models.js';
import { absorb, Fold, idsToRead } from './fold.js';

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
    /**
     * On a log that projects in its appends' transactions (EventStore.projectedWith), which may move the checkpoint
     * past this lane: whether this process's own appends have projected everything up to a position.
     */
    private readonly projectedByAppends?: (position: bigint) => boolean,
  ) {
    super(projection.name, projection.canHandle, readModels);
  }

  protected override handles(event: RecordedEvent): boolean {
    return super.handles(event) && (this.projection.acts?.(event) ?? true);
  }

  /** One commit for the page: every document it changes, folded in memory, with the page's last position. */
  async handle(events: RecordedEvent[]): Promise<void> {
    const from = await this.startOf(events);
    if (from === undefined) return;
    const fold = await this.take(events, new Fold(from));
    if (fold.handled > 0) await this.commitFold(fold);
    else await this.skipTo(fold.position, events.length);
  }

  /**
   * Where the page's fold starts: this lane's position, or the stored checkpoint when appends have moved it further;
   * undefined when they have moved it past the whole page, which then needs nothing (the lane moves past it).
   */
  private async startOf(events: readonly RecordedEvent[]): Promise<bigint | undefined> {
    if (this.projectedByAppends === undefined) return this.position;
    const last = events.at(-1)?.position ?? this.position;
    // This process's appends projected the whole page (the usual case): no need to ask the store where it stands.
    const stored = this.projectedByAppends(last) ? last : ((await this.readModels.checkpoint(this.name)) ?? 0n);
    if (stored < last) return stored > this.position ? stored : this.position;
    this.position = last;
    return undefined;
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
    await this.commit(fold.position, fold.writes(this.projection.collection));
    fold.clear();
  }

  /** Each event evolves its document (as folded, or as stored) and adds to its counter rows. */
  private async absorb(events: RecordedEvent[], fold: Fold): Promise<void> {
    if (events.length === 0) return;
    const stored = await this.readModels.getMany(this.projection.collection, idsToRead(this.projection, events, fold));
    absorb(this.projection, events, stored, fold);
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
