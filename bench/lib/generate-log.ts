import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { newId } from '../../src/domain/ids.js';
import { externalIdStream } from '../../src/domain/subject.js';
import type { ExpectedRevision, NewEvent, RecordedEvent } from '../../src/ports/event-store.js';
import { loadConfig } from '../../src/settings/config.js';
import { openLog } from '../../src/wiring/environments.js';
import { answerBatches, subjectBody } from './api.js';
import { expectStatus, inParallel, jsonClient } from './client.js';
import { startNatureServer } from './nature-server.js';

/** The sandbox log file in a data directory, as the server names it. */
export const logFile = (dataDir: string) => join(dataDir, 'sandbox.events.db');

const templateExternalId = (n: number) => `rebuild-t${String(n).padStart(5, '0')}`;
const cloneExternalId = (n: number, clone: number) => `${templateExternalId(n)}-c${String(clone).padStart(5, '0')}`;

/** Ids the service mints (ULIDs with a type prefix) that a copy must not share with its template. */
const MINTED_ID = /\b(sub|asm|prf|evt|whd|req)_[0-9A-HJKMNP-TV-Z]{26}\b/g;
const TEMPLATE_EXTERNAL_ID = /"rebuild-t(\d{5})"/g;

export interface GeneratedLog {
  events: number;
  assessments: number;
  templates: number;
  templateSeconds: number;
  copySeconds: number;
}

/**
 * A sandbox log of completed assessments, exactly as the service writes it, of at least `target` events.
 *
 * Driving every assessment through the API would take many minutes, so `templates` assessments go
 * through the real server (subject, start, 4 PATCHes; scoring and publishing by its own reactors), and
 * the log is then filled with copies of them: each copy has fresh ids (every minted id, event ids, the
 * reservation stream's keyed hash of a fresh external id) and its personal fields sealed anew under its
 * own subject's data key, by the service's EncryptingEventStore, appended stream by stream in the
 * template's order and grouping, at the template's expected revisions.
 */
export async function generateLog(dataDir: string, target: number, templates: number): Promise<GeneratedLog> {
  let started = performance.now();
  // synchronous only decides when the bytes reach the disk; the events are the same.
  const server = await startNatureServer({ NATURE_SQLITE_SYNCHRONOUS: 'NORMAL', LOG_LEVEL: 'warn' }, dataDir);
  const client = jsonClient(server.url, server.key, 8);
  try {
    await inParallel(
      Array.from({ length: templates }, (_, n) => n),
      8,
      async (n) => {
        const subject = await expectStatus(
          client.call('POST', '/v1/nature/subjects', subjectBody(templateExternalId(n))),
          201,
          'create a subject',
        );
        const base = `/v1/nature/subjects/${subject.id as string}/assessments`;
        const assessment = await expectStatus(client.call('POST', base, { language: 'en' }), 201, 'start an assessment');
        for (const batch of answerBatches)
          await expectStatus(client.call('PATCH', `${base}/${assessment.id as string}`, { responses: batch }), 200, 'PATCH');
      },
    );
    // Done once every completion is scored and marked published: the last events a completion makes.
    const db = new Database(logFile(dataDir), { readonly: true });
    const published = db.prepare<[], { n: number }>("SELECT count(*) AS n FROM events WHERE type = 'NotificationPublished'");
    const deadline = Date.now() + 120_000;
    while (published.get()!.n < templates) {
      if (Date.now() > deadline) throw new Error(`only ${published.get()!.n} of ${templates} completions were published in 120 s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    db.close();
  } finally {
    client.close();
    await server.stop();
  }
  const templateSeconds = (performance.now() - started) / 1000;

  started = performance.now();
  const config = loadConfig({ NATURE_DATA_DIR: dataDir, NATURE_SQLITE_SYNCHRONOUS: 'NORMAL', LOG_LEVEL: 'silent' });
  const { events, sealedLog, dataKeys } = await openLog(config, 'test');
  try {
    const template = await events.readAll({ limit: 10_000_000 });
    const secret = await dataKeys.environmentSecret();
    const reservations = new Map(Array.from({ length: templates }, (_, n) => [externalIdStream(templateExternalId(n), secret), n]));
    const appends = groupByAppend(template);
    const copies = Math.max(0, Math.ceil((target - template.length) / template.length));
    await inParallel(
      Array.from({ length: copies }, (_, i) => i + 1),
      4,
      async (clone) => {
        const ids = new Map<string, string>();
        const fresh = (id: string) => ids.get(id) ?? ids.set(id, newId(id.slice(0, 3) as 'sub')).get(id)!;
        const rewrite = (text: string) =>
          text.replace(MINTED_ID, fresh).replace(TEMPLATE_EXTERNAL_ID, (_, n: string) => JSON.stringify(cloneExternalId(Number(n), clone)));
        for (const group of appends) {
          const first = group[0]!;
          const reserved = reservations.get(first.streamName);
          const stream = reserved === undefined ? rewrite(first.streamName) : externalIdStream(cloneExternalId(reserved, clone), secret);
          const copied: NewEvent[] = group.map((event) => ({
            id: randomUUID(),
            type: event.type,
            data: JSON.parse(rewrite(JSON.stringify(event.data))),
            metadata: JSON.parse(rewrite(JSON.stringify(event.metadata))),
          }));
          const expected: ExpectedRevision = first.revision === 0n ? 'no_stream' : first.revision - 1n;
          await events.appendToStream(stream, copied, expected);
        }
      },
    );
    const total = (await sealedLog.readAll({ limit: 10_000_000 })).length;
    return {
      events: total,
      assessments: templates * (copies + 1),
      templates,
      templateSeconds,
      copySeconds: (performance.now() - started) / 1000,
    };
  } finally {
    await sealedLog.close();
    await dataKeys.close();
  }
}

/** The template's appends: consecutive events of one stream recorded together were one append. */
function groupByAppend(log: RecordedEvent[]): RecordedEvent[][] {
  const groups: RecordedEvent[][] = [];
  for (const event of log) {
    const last = groups.at(-1)?.at(-1);
    if (last && last.streamName === event.streamName && last.recordedAt === event.recordedAt && last.revision + 1n === event.revision)
      groups.at(-1)!.push(event);
    else groups.push([event]);
  }
  return groups;
}
