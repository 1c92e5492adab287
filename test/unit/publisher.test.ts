import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqliteBus } from '../../src/adapters/sqlite/bus.js';
import { SqliteEventStore } from '../../src/adapters/sqlite/event-store.js';
import { toNewEvents } from '../../src/commands/handle-command.js';
import type { ProfileUpdated, ScoringCompleted } from '../../src/domain/assessment.js';
import type { Bus } from '../../src/ports/bus.js';
import type { Recorded } from '../../src/ports/event-store.js';
import { notificationStream, publisherReactor } from '../../src/projections/publisher.js';
import { tempDir } from '../support/temp-dir.js';

describe('publisher', () => {
  let dir: ReturnType<typeof tempDir>;
  let events: SqliteEventStore;
  let bus: SqliteBus;
  let published: { id: string; payload: unknown }[];
  let counting: Bus;
  beforeEach(() => {
    dir = tempDir();
    events = new SqliteEventStore(join(dir.path, 'e.db'), 'FULL');
    bus = new SqliteBus(join(dir.path, 'e.db'), 'FULL');
    published = [];
    // The real bus, counting what is published through it.
    counting = {
      ...bus,
      publish: (topic, id, payload) => {
        published.push({ id, payload });
        return bus.publish(topic, id, payload);
      },
      close: () => bus.close(),
    } as Bus;
  });
  afterEach(async () => {
    await bus.close();
    await events.close();
    dir.cleanup();
  });

  it('publishes a completion once, even when it reacts to it again (a replay, or a rebuild of the read models)', async () => {
    const data = {
      assessment_id: 'asm_1',
      subject_id: 'sub_1',
      profile_id: 'prf_1',
      event_id: 'evt_1',
      scoring_version: 'mn76-v1',
      language: 'en',
      completed_at: 'x',
      pii: {},
    };
    await events.appendToStream('assessment-asm_1', toNewEvents([{ type: 'ScoringCompleted', data }], {}), 'any');
    const [completed] = (await events.readAll({ limit: 10 })) as Recorded<ScoringCompleted>[];
    const reactor = publisherReactor(events, counting);
    await reactor.react(completed!);
    await reactor.react(completed!);
    await publisherReactor(events, counting).react(completed!);
    expect(published.map((p) => p.id)).toEqual(['evt_1']);
    expect((await events.readStream(notificationStream('evt_1'))).events.map((e) => e.type)).toEqual(['NotificationPublished']);
  });

  it('publishes what fan-out and delivery need: the event object and its log position', async () => {
    await events.appendToStream('other', toNewEvents([{ type: 'SomethingEarlier', data: {} }], {}), 'any');
    const data = {
      assessment_id: 'asm_1',
      subject_id: 'sub_1',
      profile_id: 'prf_2',
      previous_profile_id: 'prf_1',
      scoring_version: 'mn76-v2',
      event_id: 'evt_2',
      updated_at: '2026-11-21T10:00:00.000Z',
    };
    await events.appendToStream('assessment-asm_1', toNewEvents([{ type: 'ProfileUpdated', data }], {}), 'any');
    const updated = (await events.readStream('assessment-asm_1')).events[0] as Recorded<ProfileUpdated>;
    await publisherReactor(events, counting).react(updated);
    expect(published).toEqual([
      {
        id: 'evt_2',
        payload: {
          event: {
            id: 'evt_2',
            type: 'nature.profile.updated',
            created_at: '2026-11-21T10:00:00.000Z',
            data: {
              profile_id: 'prf_2',
              previous_profile_id: 'prf_1',
              assessment_id: 'asm_1',
              subject_id: 'sub_1',
              scoring_version: 'mn76-v2',
            },
          },
          position: '2',
        },
      },
    ]);
  });

  it('publishes a page of completions at once, each once: those recorded already are passed over, the rest recorded', async () => {
    const completion = (n: number) => ({
      type: 'ScoringCompleted',
      data: {
        assessment_id: `asm_${n}`,
        subject_id: 'sub_1',
        profile_id: `prf_${n}`,
        event_id: `evt_${n}`,
        scoring_version: 'mn76-v1',
        language: 'en',
        completed_at: 'x',
        pii: {},
      },
    });
    await events.appendToStream('assessments', toNewEvents([1, 2, 3].map(completion), {}), 'any');
    const page = (await events.readAll({ limit: 10 })) as Recorded<ScoringCompleted>[];
    const reactor = publisherReactor(events, counting);
    await reactor.react(page[1]!);
    await reactor.reactAll!(page);
    expect(published.map((p) => p.id)).toEqual(['evt_2', 'evt_1', 'evt_3']);
    for (const n of [1, 2, 3])
      expect((await events.readStream(notificationStream(`evt_${n}`))).events.map((e) => e.type)).toEqual(['NotificationPublished']);
  });
});
