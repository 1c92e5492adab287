import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { etagOf, sendRevalidated } from './conditional-get.js';

/** Five minutes: a deploy reaches readers soon, and a revalidation after that costs a 304. */
const CACHE_CONTROL = 'public, max-age=300';

/** A public file served from memory: its bytes, their strong validator, its type and its own headers. */
export interface StaticAsset {
  body: string;
  etag: string;
  type: string;
  headers: Record<string, string>;
}

export function staticAsset(body: string, type: string, headers: Record<string, string> = {}): StaticAsset {
  return { body, etag: etagOf(body), type, headers };
}

/**
 * The path of `relative` under the package root: beside src/ in a checkout (run by tsx), beside dist/ once
 * built (dist/src/…), and in the image, where the Dockerfile copies it. Missing, start-up fails naming it.
 */
export function packagePath(relative: string): string {
  for (let dir = dirname(fileURLToPath(import.meta.url)); dir !== dirname(dir); dir = dirname(dir)) {
    if (existsSync(join(dir, relative))) return join(dir, relative);
  }
  throw new Error(`${relative} is missing from the package (npm run build makes what is built)`);
}

/** Sends the asset, or 304 when the reader has it already. */
export function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: StaticAsset): FastifyReply {
  return sendRevalidated(request, reply, { ...asset, headers: { 'cache-control': CACHE_CONTROL, ...asset.headers } });
}
