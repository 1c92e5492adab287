import { createHash } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import { type Catalogue, catalogueVersion } from '../careers/catalogue.js';
import { newId } from '../domain/ids.js';
import type { InstalledCatalogue } from '../ports/careers-catalogue.js';

/**
 * The catalogue as every catalogue store keeps it: its JSON, gzipped (about 2 MB for a release's 44,000 titles,
 * read and parsed in well under a second), and the SHA-256 of that JSON, by which an install of the same content
 * is told apart from a new one.
 */
interface EncodedCatalogue {
  body: Buffer;
  digest: string;
  version: string;
}

export function encodeCatalogue(catalogue: Catalogue): EncodedCatalogue {
  const json = JSON.stringify(catalogue);
  return {
    body: gzipSync(json),
    digest: createHash('sha256').update(json).digest('hex'),
    version: catalogueVersion(catalogue),
  };
}

export const decodeCatalogue = (body: Uint8Array): Catalogue => JSON.parse(gunzipSync(body).toString('utf8')) as Catalogue;

/** What a store records for a new install: a fresh id, so servers see a change even back to earlier content. */
export const newInstall = (encoded: EncodedCatalogue, now = new Date()): InstalledCatalogue => ({
  id: newId('cat'),
  version: encoded.version,
  digest: encoded.digest,
  installedAt: now.toISOString(),
});

/** The install record as the SQL stores keep it, one row. */
export interface CatalogueRow {
  id: string;
  version: string;
  digest: string;
  installed_at: string;
}

export const installedOf = (row: CatalogueRow): InstalledCatalogue => ({
  id: row.id,
  version: row.version,
  digest: row.digest,
  installedAt: row.installed_at,
});

/** Thrown by `load` for an id that is no longer (or never was) installed: a newer install replaced it. */
export class CatalogueGoneError extends Error {
  override readonly name = 'CatalogueGoneError';
  constructor(id: string) {
    super(`catalogue ${id} is no longer installed`);
  }
}
