import type { Catalogue } from '../careers/catalogue.js';

/** The catalogue installed now: what servers compare to see that an import swapped in a new one. */
export interface InstalledCatalogue {
  /** Changes with every install that changed anything. */
  id: string;
  /** `onet-27.0/careers-map-v1`. */
  version: string;
  /** A digest of the catalogue's content: installing the same content again changes nothing. */
  digest: string;
  installedAt: string;
}

/** Where the imported catalogue is kept (shared by both environments), swapped whole. */
export interface CatalogueStore {
  current(): Promise<InstalledCatalogue | undefined>;
  load(id: string): Promise<Catalogue>;
  /** Swaps `catalogue` in atomically (a crash half-way leaves the previous one current); unchanged when the same. */
  install(catalogue: Catalogue): Promise<{ changed: boolean; installed: InstalledCatalogue }>;
  close(): Promise<void>;
}
