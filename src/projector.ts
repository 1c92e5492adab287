import type { Logger } from 'pino';
import type { Projection, Reactor } from '../projections/projection.js';
import type { SubjectErased } from './domain/subject.js';
import type { EventStore, RecordedEvent } from './ports/event-store.js';
import type { DocumentWrite, ReadModelStore } from './ports/read-models.js';

/** Events a handler may skip before its checkpoint is moved past them anyway. */
const IDLE_CHECKPOINT_EVERY = 500;

/**
 * Runs the projections and reactors over a catch-up subscription to the log. A projection's document
 * and checkpoint are committed together, so a restart resumes where it stopped and a replayed event
 * changes nothing; a reactor's checkpoint follows its reaction (reactors tolerate a repeat). A failure
 * restarts the subscription from the checkpoints after a pause.
 */
export class Projector {
  private processed = 0n;
  private readonly waiters = new Set<{ position: bigint; resolve: (reached: boolean) => void }>();
  private readonly abort = new AbortController();
  private running: Promise<void> | undefined;

  constructor(
    private readonly events: EventStore,
    private readonly readModels: ReadModelStore,
    private readonly projections: readonly Projection[],
    private readonly reactors: readonly Reactor[],
    private readonly logger: Logger,
    private readonly retryDelayMs = 1000,
  ) {}

  start(): void {
    this.running ??= this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.running;
    for (const waiter of this.waiters) waiter.resolve(false);
  }

  /**
   * Resolves true once every projection has handled the event at `position` (read-your-writes for the
   * caller that appended it), or false after `timeoutMs`.
   */
  waitFor(position: bigint, timeoutMs: number): Promise<boolean> {
    if (this.processed >= position) return Promise.resolve(true);
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
    });
  }

  private async run(): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      try {
        await this.catchUp(signal);
      } catch (error) {
        this.logger.error({ err: error }, 'projector failed; resuming from the checkpoints');
        await new Promise((resolve) => setTimeout(resolve, this.retryDelayMs));
      }
    }
  }

  private async catchUp(signal: AbortSignal): Promise<void> {
    const handlers = [...this.projections, ...this.reactors];
    const checkpoints = new Map<string, bigint>();
    for (const handler of handlers) checkpoints.set(handler.name, (await this.readModels.checkpoint(handler.name)) ?? 0n);
    // Handlers resume together from the oldest checkpoint; each skips what it has already done.
    const positions = [...checkpoints.values()];
    const after = positions.reduce((min, position) => (position < min ? position : min), positions[0] ?? this.processed);
    const idle = new Map<string, number>();
    for await (const event of this.events.subscribeToAll({ after, signal })) {
      const erasure = event.type === 'SubjectErased';
      const handles = (handler: Projection | Reactor) => handler.canHandle.includes(event.type) || (erasure && 'erasure' in handler && handler.erasure !== undefined);
      const due = (handler: Projection | Reactor) => handles(handler) && event.position > checkpoints.get(handler.name)!;
      // A handler with nothing to do keeps its checkpoint moving too, so a restart never re-reads the whole log.
      for (const handler of handlers.filter((h) => !due(h) && event.position > checkpoints.get(h.name)!)) {
        const seen = (idle.get(handler.name) ?? 0) + 1;
        idle.set(handler.name, seen % IDLE_CHECKPOINT_EVERY);
        if (seen < IDLE_CHECKPOINT_EVERY) continue;
        await this.readModels.commit(handler.name, event.position, []);
        checkpoints.set(handler.name, event.position);
      }
      const projecting = this.projections.filter(due);
      for (const projection of projecting) {
        await this.readModels.commit(projection.name, event.position, [await this.writeFor(projection, event)]);
        checkpoints.set(projection.name, event.position);
      }
      // What the erasure overwrote must not linger in the store's files.
      if (erasure && projecting.length > 0) await this.readModels.purge();
      for (const reactor of this.reactors.filter(due)) {
        await reactor.react(event);
        await this.readModels.commit(reactor.name, event.position, []);
        checkpoints.set(reactor.name, event.position);
      }
      this.advance(event.position);
    }
  }

  private async writeFor(projection: Projection, event: RecordedEvent): Promise<DocumentWrite> {
    if (event.type === 'SubjectErased' && projection.erasure !== undefined) {
      const { subject_id } = event.data as SubjectErased['data'];
      return { collection: projection.collection, where: { subject_id }, keep: projection.erasure.keep, set: { erased: true } };
    }
    const id = projection.documentId(event);
    return { collection: projection.collection, id, doc: projection.evolve(await this.readModels.get(projection.collection, id), event) };
  }

  private advance(position: bigint): void {
    this.processed = position;
    for (const waiter of this.waiters) if (waiter.position <= position) waiter.resolve(true);
  }
}
