import { join } from 'node:path';
import { SqliteCatalogueStore } from '../../src/adapters/sqlite/catalogue-store.js';
import { tempDir } from '../support/temp-dir.js';
import { catalogueStoreContract } from './catalogue-store.contract.js';

catalogueStoreContract('sqlite', async () => {
  const dir = tempDir();
  const file = join(dir.path, 'careers.db');
  const store = new SqliteCatalogueStore(file, 'FULL');
  return {
    store,
    another: async () => new SqliteCatalogueStore(file, 'FULL'),
    async cleanup() {
      await store.close();
      dir.cleanup();
    },
  };
});
