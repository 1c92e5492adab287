import { fileURLToPath } from 'node:url';

/** The checkout: the server, the CLI and the stores under test live here. */
export const root = fileURLToPath(new URL('../..', import.meta.url));

/** The tests' temp directories serve the benchmark too. */
export { tempDir } from '../../test/support/temp-dir.js';
