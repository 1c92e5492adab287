import { afterAll } from 'vitest';
import { PostgresCatalogueStore } from '../../src/adapters/postgres/catalogue-store.js';
import { postgresBinDir, sharedPostgres } from '../support/postgres-cluster.js';
import { catalogueStoreContract } from './catalogue-store.contract.js';

const missing = postgresBinDir === undefined;
const shared = sharedPostgres();
afterAll(() => shared.stopShared());

/** Each test's store in a schema of its own, on the file's one database. */
let schemas = 0;

catalogueStoreContract(
  'postgres',
  async () => {
    const [url, schema] = [await shared.database(), `catalogue_${++schemas}`];
    const store = await PostgresCatalogueStore.connect(url, schema);
    return {
      store,
      another: () => PostgresCatalogueStore.connect(url, schema, { max: 1 }),
      cleanup: () => store.close(),
    };
  },
  missing,
);
