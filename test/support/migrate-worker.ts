/**
 * A process that migrates a file with countedSteps, as a replica starting: `node --import tsx migrate-worker.ts
 * <file> [kill-in-step]`. It says "ready" once its file is open, then waits for `<file>.go` to exist, so that
 * several start their steps together.
 */
import { existsSync } from 'node:fs';
import { openDatabase } from '../../src/adapters/sqlite/database.js';
import { migrate } from '../../src/adapters/sqlite/migrations.js';
import { countedSteps } from './counted-steps.js';

const [file, killIn] = process.argv.slice(2);
const db = openDatabase(file!, 'NORMAL');
process.stdout.write('ready\n');
while (!existsSync(`${file}.go`)) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 2);
migrate(db, file!, countedSteps(killIn === undefined ? undefined : { step: Number(killIn), how: 'kill' }));
db.close();
