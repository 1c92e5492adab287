import type { Catalogue } from '../../careers/catalogue.js';
import type { CatalogueStore, InstalledCatalogue } from '../../ports/careers-catalogue.js';
import { CatalogueGoneError, type CatalogueRow, decodeCatalogue, encodeCatalogue, installedOf, newInstall } from '../catalogue-codec.js';
import type { PostgresOptions, PostgresPool } from './client.js';
import { KEYS_SCHEMA } from './keys-schema.js';
import { migratedPool, type PostgresStep } from './migrations.js';

/** The catalogue's own store in the keys schema (its steps numbered apart from the API keys'). */
const CAREERS_STORE = 'careers';

const CAREERS_STEPS: PostgresStep[] = [
  {
    version: 1,
    does: 'the installed careers catalogue',
    async run(tx) {
      await tx.unsafe(`
        CREATE TABLE careers_catalogue (
          one          integer PRIMARY KEY CHECK (one = 1),
          id           text  NOT NULL,
          version      text  NOT NULL,
          digest       text  NOT NULL,
          installed_at text  NOT NULL,
          body         bytea NOT NULL
        );`);
    },
  },
];

/**
 * The careers catalogue in `nature_keys.careers_catalogue`, beside the API keys and shared like them by both
 * environments and every replica: one row replaced in one transaction, so a crash half-way leaves the previous
 * catalogue, and two imports at once take turns (the row's table locked) rather than both install.
 */
export class PostgresCatalogueStore implements CatalogueStore {
  private constructor(private readonly pool: PostgresPool) {}

  static async connect(url: string, schema = KEYS_SCHEMA, options?: PostgresOptions): Promise<PostgresCatalogueStore> {
    return new PostgresCatalogueStore(await migratedPool(url, schema, CAREERS_STORE, CAREERS_STEPS, options));
  }

  async current(): Promise<InstalledCatalogue | undefined> {
    const [row] = await this.pool.answered(this.pool.sql<CatalogueRow[]>`SELECT id, version, digest, installed_at FROM careers_catalogue`);
    return row === undefined ? undefined : installedOf(row);
  }

  async load(id: string): Promise<Catalogue> {
    const [row] = await this.pool.answered(this.pool.sql<{ body: Buffer }[]>`SELECT body FROM careers_catalogue WHERE id = ${id}`);
    if (row === undefined) throw new CatalogueGoneError(id);
    return decodeCatalogue(row.body);
  }

  async install(catalogue: Catalogue): Promise<{ changed: boolean; installed: InstalledCatalogue }> {
    const encoded = encodeCatalogue(catalogue);
    return this.pool.sql.begin(async (tx) => {
      await tx`LOCK TABLE careers_catalogue IN SHARE ROW EXCLUSIVE MODE`;
      const [row] = await tx<CatalogueRow[]>`SELECT id, version, digest, installed_at FROM careers_catalogue`;
      if (row !== undefined && row.digest === encoded.digest) return { changed: false, installed: installedOf(row) };
      const installed = newInstall(encoded);
      await tx`
        INSERT INTO careers_catalogue (one, id, version, digest, installed_at, body)
        VALUES (1, ${installed.id}, ${installed.version}, ${installed.digest}, ${installed.installedAt}, ${encoded.body})
        ON CONFLICT (one) DO UPDATE SET id = EXCLUDED.id, version = EXCLUDED.version, digest = EXCLUDED.digest,
          installed_at = EXCLUDED.installed_at, body = EXCLUDED.body`;
      return { changed: true, installed };
    });
  }

  async close(): Promise<void> {
    await this.pool.release();
  }
}
