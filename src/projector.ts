import type { Logger } from 'pino';
import type { DerivedChange, Projection, Reactor } from '../projections/projection.js';
import type { SubjectErased } from './domain/subject.js';
import { pause } from './pause.js';
import type { EventStore, RecordedEvent } from './ports/event-store.js';
import { type Document, type DocumentWrite, type Fence, FencedOffError, type ReadModelStore } from './ports/read-models.js';

/** Events per page at most: a projection commits once per page. */
const PAGE_SIZE = 512;
/** Pages the reader reads ahead of the fastest handler. */
const READ_AHEAD = 2;
/** Events kept for handlers that lag; one further behind reads the log itself until it catches up. */
const RETAINED_EVENTS = 16 * PAGE_SIZE;
/** A handler that has not moved for this long is stalled: the reader goes on without it. */
const STALL_MS = 1000;
/** Events a handler may skip before its checkpoint is moved past them anyway. */
const IDLE_CHECKPOINT_EVERY = 500;
/**
 * The checkpoint every projection has reached (events passed over included), kept by the replica that runs
 * them for the replicas that do not: their writes wait on it.
 */
export const PROJECTED = 'projections';
/** How often a replica that does not run the projections looks at PROJECTED while a write waits on it. */
const FOLLOW_POLL_MS = 20;

/**
 * Runs the projections and reactors of one log from one reader: each page of events is read (and its
 * personal data opened) once and handed to every handler, each in its own lane with its own checkpoint, so
 * a failing or slow handler stalls only itself. A projection folds a page into one write per document and
 * commits them with its checkpoint, so a restart resumes where it stopped and a replayed page changes
 * nothing; a reactor's checkpoint follows its reactions (reactors tolerate a repeat).
 *
 * Among replicas, the one that leads runs them (`start` with its fence; every commit is refused once the
 * lease has passed on) and the others follow (`follow`): their `waitFor` watches the leader's progress in
 * the store.
 */
export class Projector {
  private readonly lanes: Lane[];
  /** The lanes whose progress `waitFor` reports: the projections (the reactors when there are none). */
  private readonly tracked: Lane[];
  /** Pages read and not yet handled by every lane, oldest first. */
  private readonly pages: { events: RecordedEvent[]; last: bigint }[] = [];
  /** Events in `pages`. */
  private retained = 0;
  /** The reader resumes after this position. */
  private head = 0n;
  /** Events up to here are no longer kept: a lane behind it reads the log itself. */
  private floor = 0n;
  private readonly changes = new Changes();
  private readonly waiters = new Set<{ position: bigint; resolve: (reached: boolean) => void }>();
  /** The current run, while this replica runs the handlers; its lanes' positions count once loaded. */
  private current: { abort: AbortController; running: Promise<void>; loaded: boolean } | undefined;
  /** PROJECTED as last written, and the write under way. */
  private published = 0n;
  private publishing: Promise<void> | undefined;
  private polling = false;
  private stopped = false;
  private fence: Fence | undefined;

  constructor(
    private readonly events: EventStore,
    private readonly readModels: ReadModelStore,
    projections: readonly Projection[],
    reactors: readonly Reactor[],
    private readonly logger: Logger,
    private readonly retryDelayMs = 1000,
  ) {
    const projecting = projections.map((projection) => new ProjectionLane(projection, readModels));
    this.lanes = [...projecting, ...reactors.map((reactor) => new ReactorLane(reactor, readModels))];
    this.tracked = projecting.length > 0 ? projecting : this.lanes;
  }

  /**
   * Runs the handlers from their checkpoints, each commit under `fence` when given (the lease of a leader),
   * and each reaction after `guard` (by default, the store's word that the fence still holds): a reactor's
   * effects lie outside the store, so a deposed leader must not start one.
   */
  start(fence?: Fence, guard: (() => Promise<void>) | undefined = fence && (() => this.readModels.checkFence(fence))): void {
    if (this.current !== undefined || this.stopped) return;
    this.fence = fence;
    for (const lane of this.lanes) {
      lane.fence = fence;
      lane.guard = guard;
    }
    const abort = new AbortController();
    const run = { abort, running: Promise.resolve(), loaded: false };
    run.running = this.run(run).finally(() => {
      if (this.current !== run) return;
      // Ended by follow(), stop(), or a fence: waiting writes follow the store from now on.
      this.current = undefined;
      this.watchStore();
    });
    this.current = run;
  }

  /** Stops running the handlers (another replica leads); `waitFor` goes on, watching the store. */
  async follow(): Promise<void> {
    const run = this.current;
    if (run === undefined) return;
    run.abort.abort();
    this.changes.notify();
    await run.running;
    await this.publishing;
  }

  /** Stops for good: the handlers, and every write still waiting (answered false). */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.follow();
    for (const waiter of this.waiters) waiter.resolve(false);
  }

  /**
   * Resolves true once every projection has handled the event at `position` (read-your-writes for the
   * caller that appended it), here or, on a replica that does not run them, as the store says; false after
   * `timeoutMs`.
   */
  waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    if (this.current?.loaded === true && this.processed() >= position) return Promise.resolve(true);
    if (this.stopped) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = {
        position,
        resolve: (reached: boolean) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(reached);
        },
      };
      const timer = setTimeout(() => waiter.resolve(false), timeoutMs);
      this.waiters.add(waiter);
      this.watchStore();
    });
  }

  private processed(): bigint {
    return this.tracked.reduce((min, lane) => (lane.position < min ? lane.position : min), this.tracked[0]?.position ?? 0n);
  }

  /** While writes wait and no run of this replica answers them: polls PROJECTED, written by the replica that leads. */
  private watchStore(): void {
    if (this.polling || this.waiters.size === 0 || this.current !== undefined || this.stopped) return;
    this.polling = true;
    void (async () => {
      try {
        while (this.waiters.size > 0 && this.current === undefined && !this.stopped) {
          let projected: bigint | undefined;
          try {
            projected = await this.readModels.checkpoint(PROJECTED);
          } catch (error) {
            this.logger.warn({ err: error }, 'could not read how far the projections are; trying again');
          }
          if (projected !== undefined) for (const waiter of this.waiters) if (waiter.position <= projected) waiter.resolve(true);
          await pause(FOLLOW_POLL_MS);
        }
      } finally {
        this.polling = false;
      }
      // A write that began to wait as this poll ended is watched by a new one.
      this.watchStore();
    })();
  }

  private async run(run: { abort: AbortController; loaded: boolean }): Promise<void> {
    const signal = run.abort.signal;
    this.pages.length = 0;
    this.retained = 0;
    while (!signal.aborted) {
      try {
        for (const lane of this.lanes) await lane.load();
        break;
      } catch (error) {
        this.logger.error({ err: error }, 'projector could not read its checkpoints; trying again');
        await pause(this.retryDelayMs, signal);
      }
    }
    if (signal.aborted) return;
    // Lanes resume together from the oldest checkpoint; each skips what it has already done.
    this.head = this.floor = this.lanes.reduce((min, lane) => (lane.position < min ? lane.position : min), this.lanes[0]?.position ?? 0n);
    run.loaded = true;
    this.advanced();
    await Promise.all([this.read(signal), ...this.lanes.map((lane) => this.drive(lane, run.abort))]);
  }

  /**
   * The one reader: pages of the log, kept until every lane has handled them, read at the pace of the
   * fastest lane as long as the slowest keeps up. A page ends at PAGE_SIZE events or where the next event
   * has to be waited for (the subscription has nothing ready: the flush scheduled with setImmediate runs),
   * so a catch-up reads big pages and a caught-up reader hands each append on at once.
   */
  private async read(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      let page: RecordedEvent[] = [];
      let flushing: NodeJS.Immediate | undefined;
      const flush = () => {
        clearImmediate(flushing);
        flushing = undefined;
        if (page.length === 0) return;
        this.head = page.at(-1)!.position;
        this.pages.push({ events: page, last: this.head });
        this.retained += page.length;
        page = [];
        this.trim();
        this.changes.notify();
      };
      // The store searched the log up to `position` and found no more events: lanes with nothing pending move there.
      const onCheckpoint = (position: bigint) => {
        flush();
        if (position > this.head) this.head = position;
        this.changes.notify();
      };
      try {
        for await (const event of this.events.subscribeToAll({ after: this.head, signal, onCheckpoint })) {
          page.push(event);
          if (page.length < PAGE_SIZE) {
            flushing ??= setImmediate(flush);
            continue;
          }
          flush();
          await this.room(signal);
          if (signal.aborted) break;
        }
      } catch (error) {
        this.logger.error({ err: error }, 'projector could not read the log; resuming');
        await pause(this.retryDelayMs, signal);
      }
      // What was read stands: the next subscription resumes after it.
      flush();
    }
  }

  /**
   * One handler's loop: after a failure, it alone pauses and resumes from its checkpoint. A commit refused by
   * the fence means another replica leads now: the whole run stops at once.
   */
  private async drive(lane: Lane, abort: AbortController): Promise<void> {
    const signal = abort.signal;
    let failed = false;
    while (!signal.aborted) {
      try {
        if (failed) await lane.load();
        failed = false;
        const events = await this.next(lane, signal);
        if (events === undefined) return;
        await lane.handle(events, signal);
      } catch (error) {
        if (error instanceof FencedOffError) {
          this.logger.warn({ handler: lane.name }, 'another replica leads now; the projections and reactors stop here');
          abort.abort();
          this.changes.notify();
          return;
        }
        failed = true;
        this.logger.error({ err: error, handler: lane.name }, `${lane.name} failed; resuming from its checkpoint`);
        await pause(this.retryDelayMs, signal);
      }
      this.trim();
      this.advanced();
    }
  }

  /** The lane's next events: from the shared pages, or from the log when it is behind them; undefined once stopped. */
  private async next(lane: Lane, signal: AbortSignal): Promise<RecordedEvent[] | undefined> {
    for (;;) {
      if (signal.aborted) return undefined;
      if (lane.position < this.floor) return this.events.readAll({ after: lane.position, limit: PAGE_SIZE });
      const page = this.pages.find((candidate) => candidate.last > lane.position);
      if (page !== undefined)
        return page.events[0]!.position > lane.position ? page.events : page.events.filter((event) => event.position > lane.position);
      if (this.head > lane.position) {
        await lane.pass(this.head, IDLE_CHECKPOINT_EVERY);
        continue;
      }
      await this.changes.wait();
    }
  }

  /**
   * Waits until the fastest lane is about to need another page and the kept pages have room for it, or
   * until the slowest lane has stalled: the reader then goes on, and the laggard reads the log itself.
   */
  private async room(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      const fastest = this.lanes.reduce((max, lane) => (lane.position > max ? lane.position : max), this.floor);
      if (this.pages.filter((page) => page.last > fastest).length >= READ_AHEAD) {
        await this.changes.wait();
        continue;
      }
      if (this.retained + PAGE_SIZE <= RETAINED_EVENTS) return;
      const still = performance.now() - this.lanes.reduce((slowest, lane) => (lane.position < slowest.position ? lane : slowest)).movedAt;
      if (still >= STALL_MS) return;
      await this.changes.wait(STALL_MS - still);
    }
  }

  /** Drops the pages every lane has handled, and the oldest beyond what is kept for laggards. */
  private trim(): void {
    const slowest = this.lanes.reduce((min, lane) => (lane.position < min ? lane.position : min), this.head);
    while (this.pages.length > 0 && (this.pages[0]!.last <= slowest || this.retained > RETAINED_EVENTS)) {
      const dropped = this.pages.shift()!;
      this.retained -= dropped.events.length;
      this.floor = dropped.last;
    }
  }

  private advanced(): void {
    const processed = this.processed();
    for (const waiter of this.waiters) if (waiter.position <= processed) waiter.resolve(true);
    this.changes.notify();
    this.publish();
  }

  /** Keeps PROJECTED up with the projections for the replicas that follow, one write at a time, under the run's fence. */
  private publish(): void {
    const run = this.current;
    if (this.publishing !== undefined || run === undefined || !run.loaded) return;
    const processed = this.processed();
    if (processed <= this.published) return;
    let retry = false;
    this.publishing = this.readModels
      .commit(PROJECTED, processed, [], this.fence)
      .then(
        () => {
          this.published = processed;
        },
        (error: unknown) => {
          retry = !(error instanceof FencedOffError);
          this.logger.warn({ err: error }, 'could not record how far the projections are');
        },
      )
      .finally(() => {
        this.publishing = undefined;
        if (this.current !== run) return;
        if (retry) setTimeout(() => this.publish(), this.retryDelayMs);
        else this.publish();
      });
  }
}

/** One handler's progress through the log. */
abstract class Lane {
  /** The last event handled: committed, or passed over as none of the handler's business. */
  private at = 0n;
  /** When `position` last changed (performance.now()). */
  movedAt = performance.now();
  /** Events passed over since the last commit. */
  private idle = 0;
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

  async load(): Promise<void> {
    this.position = (await this.readModels.checkpoint(this.name)) ?? 0n;
    this.idle = 0;
  }

  /** Handles events that follow `position`, in order. */
  abstract handle(events: RecordedEvent[], signal: AbortSignal): Promise<void>;

  /** Whether the event is the handler's business: by its type. */
  protected handles(event: RecordedEvent): boolean {
    return this.types.has(event.type);
  }

  protected async commit(position: bigint, writes: DocumentWrite[] = []): Promise<void> {
    await this.readModels.commit(this.name, position, writes, this.fence);
    this.position = position;
    this.idle = 0;
  }

  /** Moves past events with nothing to do; the checkpoint follows now and then, so a restart never re-reads the whole log. */
  async pass(position: bigint, count: number): Promise<void> {
    this.idle += count;
    if (this.idle >= IDLE_CHECKPOINT_EVERY) await this.commit(position);
    else this.position = position;
  }
}

class ProjectionLane extends Lane {
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
    else await this.pass(previous, events.length);
  }

  /** One write per document: the stored document evolved by each of its events in turn. */
  private async fold(events: RecordedEvent[]): Promise<DocumentWrite[]> {
    const { collection } = this.projection;
    const ids = events.map((event) => this.projection.documentId(event));
    const stored = await this.readModels.getMany(collection, [...new Set(ids)]);
    const folded = new Map<string, { doc: Document | null; position: bigint }>();
    const derived: { change: DerivedChange; position: bigint }[] = [];
    events.forEach((event, i) => {
      const id = ids[i]!;
      const current = folded.get(id);
      const version = stored.get(id);
      // The document (or its tombstone) may hold this event already: a replay after a crash, or another replica's write.
      if (current === undefined && version?.position !== undefined && event.position <= version.position) return;
      const before = current === undefined ? version?.doc : (current.doc ?? undefined);
      for (const change of this.projection.alsoChanges?.(before, event) ?? []) derived.push({ change, position: event.position });
      folded.set(id, { doc: this.projection.evolve(before, event), position: event.position });
    });
    // Derived documents first: a store without transactions writes in order, and a commit cut short after them is
    // replayed from the own documents, whose events the derived ones then say they hold already.
    const derivedFolded = derived.length > 0 ? await this.foldDerived(derived) : [];
    return [...derivedFolded, ...folded].map(([id, { doc, position }]) => ({ collection, id, doc, position }));
  }

  /** The derived changes folded as events are: those a derived document already holds (a replay) are skipped. */
  private async foldDerived(derived: { change: DerivedChange; position: bigint }[]) {
    const stored = await this.readModels.getMany(this.projection.collection, [...new Set(derived.map(({ change }) => change.id))]);
    const folded = new Map<string, { doc: Document | null; position: bigint }>();
    for (const { change, position } of derived) {
      const current = folded.get(change.id);
      const version = stored.get(change.id);
      if (current === undefined && version?.position !== undefined && position <= version.position) continue;
      folded.set(change.id, { doc: change.evolve(current === undefined ? version?.doc : (current.doc ?? undefined)), position });
    }
    return folded;
  }

  private async erase(event: RecordedEvent, keep: readonly string[]): Promise<void> {
    const { subject_id } = event.data as SubjectErased['data'];
    await this.commit(event.position, [{ collection: this.projection.collection, where: { subject_id }, keep, set: { erased: true } }]);
    // What the erasure overwrote must not linger in the store's files.
    await this.readModels.purge();
  }
}

class ReactorLane extends Lane {
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
    else await this.pass(previous, events.length);
  }
}

/** Wakes everyone waiting for the projector to change: a page read, a lane moved, a stop. */
class Changes {
  private waiters: (() => void)[] = [];

  /** Resolves on the next change, or after `timeoutMs` if given. */
  wait(timeoutMs?: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = timeoutMs === undefined ? undefined : setTimeout(resolve, timeoutMs);
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}
