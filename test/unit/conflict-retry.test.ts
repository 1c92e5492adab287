import { describe, expect, it } from 'vitest';
import { readAggregate } from '../../src/commands/aggregate.js';
import { subjectAggregate } from '../../src/commands/aggregates.js';
import { ConflictsPersistedError, MAX_ATTEMPTS, READ_AGAIN, retryOnConflict } from '../../src/commands/conflict-retry.js';
import { type EventStore, WrongExpectedRevisionError } from '../../src/ports/event-store.js';

const conflict = () => new WrongExpectedRevisionError('subject-sub_1', 3n, 4n);

describe('a command retried after conflicts', () => {
  it('runs again after a conflict or a read it changed itself, and answers the attempt that lands', async () => {
    const outcomes: (() => string | typeof READ_AGAIN)[] = [
      () => {
        throw conflict();
      },
      () => READ_AGAIN,
      () => 'landed',
    ];
    let attempts = 0;
    expect(await retryOnConflict(async () => outcomes[attempts++]!())).toBe('landed');
    expect(attempts).toBe(3);
  });

  it(`gives up after ${MAX_ATTEMPTS} attempts in conflict, with the last conflict as the cause`, async () => {
    let attempts = 0;
    const last = await retryOnConflict(async () => {
      attempts += 1;
      throw conflict();
    }).catch((error: unknown) => error);
    expect(last).toBeInstanceOf(ConflictsPersistedError);
    expect((last as Error).cause).toBeInstanceOf(WrongExpectedRevisionError);
    expect(attempts).toBe(MAX_ATTEMPTS);
  });

  it('keeps its bound when a command runs inside another: an inner give-up is not retried as a conflict', async () => {
    let outer = 0;
    let inner = 0;
    const failure = await retryOnConflict(async () => {
      outer += 1;
      return retryOnConflict(async () => {
        inner += 1;
        throw conflict();
      });
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ConflictsPersistedError);
    expect(outer).toBe(1);
    expect(inner).toBe(MAX_ATTEMPTS);
  });

  it('throws any other failure at once', async () => {
    let attempts = 0;
    const failure = new Error('disk full');
    await expect(
      retryOnConflict(async () => {
        attempts += 1;
        throw failure;
      }),
    ).rejects.toBe(failure);
    expect(attempts).toBe(1);
  });
});

describe("an aggregate's stream read", () => {
  const holding = (type: string): EventStore =>
    ({
      readStream: async (streamName: string) => ({
        revision: 0n,
        events: [{ id: 'e-1', type, data: {}, metadata: {}, streamName, revision: 0n, position: 1n, recordedAt: '2026-11-01T00:00:00Z' }],
      }),
    }) as Pick<EventStore, 'readStream'> as EventStore;

  it("types the aggregate's own events", async () => {
    const read = await readAggregate(holding('SubjectErased'), 'subject-sub_1', subjectAggregate);
    expect(read.events.map((event) => event.type)).toEqual(['SubjectErased']);
  });

  it('refuses to fold an event of another type', async () => {
    await expect(readAggregate(holding('WebhookEndpointCreated'), 'subject-sub_1', subjectAggregate)).rejects.toThrow(
      /subject-sub_1 holds a WebhookEndpointCreated event/,
    );
  });
});
