import type Database from 'better-sqlite3';
import type { Catalogue } from '../../careers/catalogue.js';
import type { CatalogueStore, InstalledCatalogue } from '../../ports/careers-catalogue.js';
import { CatalogueGoneError, type CatalogueRow, decodeCatalogue, encodeCatalogue, installedOf, newInstall } from '../catalogue-codec.js';
import { openDatabase, type Synchronous } from './database.js';
import { migrate, type SqliteStep } from './migrations.js';

/** careers.db's steps: the installed catalogue, one row, and its gzipped JSON. */
const CAREERS_FILE_STEPS: SqliteStep[] = [
  {
    version: 1,
    does: 'the installed careers catalogue',
    run: (db) =>
      db.exec(`
        CREATE TABLE catalogue (
          one          INTEGER PRIMARY KEY CHECK (one = 1),
          id           TEXT NOT NULL,
          version      TEXT NOT NULL,
          digest       TEXT NOT NULL,
          installed_at TEXT NOT NULL,
          body         BLOB NOT NULL
        );`),
  },
];

/**
 * The careers catalogue in careers.db, shared by both environments. An install replaces the one row in one IMMEDIATE
 * transaction (at synchronous FULL when so configured): a process killed half-way leaves the previous catalogue,
 * and servers reading it meanwhile (WAL) see the previous one until the commit.
 */
export class SqliteCatalogueStore implements CatalogueStore {
  private readonly db: Database.Database;
  private readonly statements;

  constructor(path: string, synchronous: Synchronous) {
    this.db = openDatabase(path, synchronous);
    migrate(this.db, path, CAREERS_FILE_STEPS);
    this.statements = {
      current: this.db.prepare<[], CatalogueRow>('SELECT id, version, digest, installed_at FROM catalogue'),
      body: this.db.prepare<[string], Buffer>('SELECT body FROM catalogue WHERE id = ?').pluck(),
      replace: this.db.prepare<[string, string, string, string, Buffer]>(
        'INSERT OR REPLACE INTO catalogue (one, id, version, digest, installed_at, body) VALUES (1, ?, ?, ?, ?, ?)',
      ),
    };
  }

  async current(): Promise<InstalledCatalogue | undefined> {
    const row = this.statements.current.get();
    return row === undefined ? undefined : installedOf(row);
  }

  async load(id: string): Promise<Catalogue> {
    const body = this.statements.body.get(id);
    if (body === undefined) throw new CatalogueGoneError(id);
    return decodeCatalogue(body);
  }

  async install(catalogue: Catalogue): Promise<{ changed: boolean; installed: InstalledCatalogue }> {
    const encoded = encodeCatalogue(catalogue);
    return this.db
      .transaction(() => {
        const row = this.statements.current.get();
        if (row !== undefined && row.digest === encoded.digest) return { changed: false, installed: installedOf(row) };
        const installed = newInstall(encoded);
        this.statements.replace.run(installed.id, installed.version, installed.digest, installed.installedAt, encoded.body);
        return { changed: true, installed };
      })
      .immediate();
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
