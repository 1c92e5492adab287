import { Binary, type Collection } from 'mongodb';
import type { Catalogue } from '../../careers/catalogue.js';
import type { CatalogueStore, InstalledCatalogue } from '../../ports/careers-catalogue.js';
import { CatalogueGoneError, decodeCatalogue, encodeCatalogue, newInstall } from '../catalogue-codec.js';
import { type MongoConnection, type MongoSettings, withMongo } from './client.js';
import { KEYS_DATABASE } from './key-store.js';

/** A part of an installed catalogue's gzipped JSON: well under MongoDB's 16 MB document limit each. */
interface ChunkDocument {
  _id: string;
  catalogue: string;
  n: number;
  data: Binary;
}

/** The one document naming the installed catalogue. */
type PointerDocument = { _id: 'current' } & InstalledCatalogue;

const CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * The careers catalogue in `nature_keys`, beside the API keys: an install writes the new catalogue's chunks
 * under its new id, then replaces the one pointer document (`careers_current`), the moment it is swapped in,
 * then removes every other catalogue's chunks. A crash before the pointer moved leaves the previous catalogue
 * current (and chunks nobody points at, removed by the next install); no transaction is needed. Two imports at
 * once are not expected of an operator: the last pointer written wins.
 */
export class MongoCatalogueStore implements CatalogueStore {
  private constructor(
    private readonly connection: MongoConnection,
    private readonly chunks: Collection<ChunkDocument>,
    private readonly pointer: Collection<PointerDocument>,
  ) {}

  static connect(settings: MongoSettings, database = KEYS_DATABASE): Promise<MongoCatalogueStore> {
    return withMongo(settings, async (connection) => {
      const db = connection.db(database);
      const chunks = db.collection<ChunkDocument>('careers_catalogue_chunks');
      await chunks.createIndex({ catalogue: 1, n: 1 });
      return new MongoCatalogueStore(connection, chunks, db.collection<PointerDocument>('careers_current'));
    });
  }

  async current(): Promise<InstalledCatalogue | undefined> {
    const document = await this.pointer.findOne({ _id: 'current' });
    if (document === null) return undefined;
    const { id, version, digest, installedAt } = document;
    return { id, version, digest, installedAt };
  }

  async load(id: string): Promise<Catalogue> {
    const parts = await this.chunks.find({ catalogue: id }).sort({ n: 1 }).toArray();
    if (parts.length === 0) throw new CatalogueGoneError(id);
    return decodeCatalogue(Buffer.concat(parts.map((part) => part.data.buffer)));
  }

  async install(catalogue: Catalogue): Promise<{ changed: boolean; installed: InstalledCatalogue }> {
    const encoded = encodeCatalogue(catalogue);
    const previous = await this.current();
    if (previous !== undefined && previous.digest === encoded.digest) return { changed: false, installed: previous };
    const installed = newInstall(encoded);
    const documents: ChunkDocument[] = [];
    for (let at = 0, n = 0; at < encoded.body.length; at += CHUNK_BYTES, n++)
      documents.push({
        _id: `${installed.id}:${n}`,
        catalogue: installed.id,
        n,
        data: new Binary(encoded.body.subarray(at, at + CHUNK_BYTES)),
      });
    await this.chunks.insertMany(documents);
    await this.pointer.replaceOne({ _id: 'current' }, installed, { upsert: true });
    await this.chunks.deleteMany({ catalogue: { $ne: installed.id } });
    return { changed: true, installed };
  }

  async close(): Promise<void> {
    await this.connection.release();
  }
}
