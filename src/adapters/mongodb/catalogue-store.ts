import { Binary, type Collection, MongoServerError } from 'mongodb';
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
const DUPLICATE_KEY = 11000;

/**
 * The careers catalogue in `nature_keys`, beside the API keys: an install writes the new catalogue's chunks
 * under its new id, then moves the one pointer document (`careers_current`) from the catalogue it read, the
 * moment it is swapped in, then removes the chunks of every older catalogue (ids are ULIDs: an import begun after
 * this one keeps its chunks). A crash before the pointer moved leaves the previous catalogue current (and chunks
 * nobody points at, removed by the next install); no transaction is needed. Of two imports at once, the pointer
 * moves for one: the other finds it moved, removes its own chunks and says so.
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
    if (!(await this.movePointer(previous, installed))) {
      await this.chunks.deleteMany({ catalogue: installed.id });
      throw new Error('another import installed a careers catalogue meanwhile; run this one again if it should win');
    }
    await this.chunks.deleteMany({ catalogue: { $lt: installed.id } });
    return { changed: true, installed };
  }

  /** Points at `installed` if the pointer still names `previous` (or nothing, as it did): whether it moved. */
  private async movePointer(previous: InstalledCatalogue | undefined, installed: InstalledCatalogue): Promise<boolean> {
    if (previous !== undefined) return (await this.pointer.replaceOne({ _id: 'current', id: previous.id }, installed)).matchedCount === 1;
    try {
      await this.pointer.insertOne({ _id: 'current', ...installed });
      return true;
    } catch (error) {
      if (error instanceof MongoServerError && error.code === DUPLICATE_KEY) return false;
      throw error;
    }
  }

  async close(): Promise<void> {
    await this.connection.release();
  }
}
