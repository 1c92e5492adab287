/**
 * The anchors the HTTP benchmark measures the service against, as their own process: bare fastify (no
 * plugins, no logger) serving the item bank's bytes, and a minimal durable write that does what a PATCH
 * cannot skip: parse the body, validate it with a zod schema of the same shape, write one row and answer
 * after the commit. On SQLite (ANCHOR_DB) the row is appended to a WAL file with synchronous=FULL, and rows
 * that arrive in one turn of the event loop are committed in one transaction on setImmediate (group commit),
 * as a store serving 10 connections would. On PostgreSQL (ANCHOR_POSTGRES_URL) each request is one INSERT,
 * its own transaction, through the driver the service uses (Postgres.js), with as many connections as callers.
 *
 *   ANCHOR_ITEMS_FILE=<the service's GET /v1/nature/items body> ANCHOR_DB=<file> PORT=… tsx bench/lib/anchors.ts
 *   ANCHOR_ITEMS_FILE=… ANCHOR_POSTGRES_URL=postgres://… PORT=… tsx bench/lib/anchors.ts
 */
import { readFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import Fastify from 'fastify';
import postgres from 'postgres';
import { z } from 'zod';
import { CONNECTIONS } from './load.js';

// As bytes, as the service keeps its item bank: a string body costs fastify a length count and an encoding each time.
const itemsBody = readFileSync(process.env.ANCHOR_ITEMS_FILE!);
const itemIds = new Set((JSON.parse(itemsBody.toString('utf8')) as { data: { id: string }[] }).data.map((item) => item.id));

const answers = z.strictObject({
  responses: z
    .array(z.strictObject({ item_id: z.string().refine((id) => itemIds.has(id)), value: z.number().int().min(1).max(5) }))
    .min(1)
    .max(itemIds.size)
    .superRefine((responses, ctx) => {
      const seen = new Set<string>();
      responses.forEach(({ item_id }, index) => {
        if (seen.has(item_id)) ctx.addIssue({ code: 'custom', path: [index, 'item_id'], message: 'answered twice' });
        seen.add(item_id);
      });
    }),
});

interface Pending {
  stream: string;
  data: string;
  position?: number;
  done: (error?: unknown) => void;
}
/** The SQLite write: every row queued in one turn of the event loop committed together. */
function sqliteAppend(file: string): (stream: string, data: string) => Promise<number> {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec('CREATE TABLE IF NOT EXISTS writes (position INTEGER PRIMARY KEY, stream TEXT NOT NULL, data TEXT NOT NULL)');
  const insert = db.prepare('INSERT INTO writes (stream, data) VALUES (?, ?)');
  const commit = db.transaction((rows: readonly Pending[]) => {
    for (const row of rows) row.position = Number(insert.run(row.stream, row.data).lastInsertRowid);
  });
  let queue: Pending[] = [];
  const flush = () => {
    const rows = queue;
    queue = [];
    try {
      commit(rows);
      for (const row of rows) row.done();
    } catch (error) {
      for (const row of rows) row.done(error);
    }
  };
  return (stream, data) =>
    new Promise((resolve, reject) => {
      const row: Pending = { stream, data, done: (error) => (error === undefined ? resolve(row.position!) : reject(error)) };
      if (queue.push(row) === 1) setImmediate(flush);
    });
}

/** The PostgreSQL write: one INSERT per request, committed on its own (PostgreSQL's defaults: fsync, synchronous_commit). */
async function postgresAppend(url: string): Promise<(stream: string, data: string) => Promise<number>> {
  const sql = postgres(url, { max: CONNECTIONS, onnotice: () => undefined });
  await sql`CREATE TABLE IF NOT EXISTS writes (position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, stream text NOT NULL, data text NOT NULL)`;
  return async (stream, data) => {
    const [row] = await sql<{ position: string }[]>`INSERT INTO writes (stream, data) VALUES (${stream}, ${data}) RETURNING position`;
    return Number(row!.position);
  };
}

const append = process.env.ANCHOR_POSTGRES_URL
  ? await postgresAppend(process.env.ANCHOR_POSTGRES_URL)
  : sqliteAppend(process.env.ANCHOR_DB!);

const app = Fastify({ logger: false });
app.get('/v1/nature/items', (_request, reply) => reply.type('application/json; charset=utf-8').send(itemsBody));
app.patch<{ Params: { id: string } }>('/answers/:id', async (request, reply) => {
  const parsed = answers.safeParse(request.body);
  if (!parsed.success) return reply.code(422).send({ error: parsed.error.issues[0]?.message });
  const position = await append(request.params.id, JSON.stringify(parsed.data.responses));
  return { id: request.params.id, position, answered: parsed.data.responses.length };
});
await app.listen({ port: Number(process.env.PORT), host: process.env.HOST ?? '127.0.0.1' });
