import type { SqliteStep } from '../../src/adapters/sqlite/migrations.js';

/**
 * Three steps that record each run of theirs in `runs` (inside their transaction, so a run rolled back leaves no
 * row): a step run twice shows as two rows. Step 2 writes enough rows to take a while, so that racing processes
 * overlap in it; `fail` names a step that kills its process half-way (a SIGKILL) or throws.
 */
export function countedSteps(fail?: { step: number; how: 'throw' | 'kill' }): SqliteStep[] {
  const failHere = (step: number) => {
    if (fail?.step !== step) return;
    if (fail.how === 'kill') process.kill(process.pid, 'SIGKILL');
    throw new Error(`step ${step} failed`);
  };
  return [
    {
      version: 1,
      does: 'runs',
      run(db) {
        db.exec('CREATE TABLE runs (step INTEGER NOT NULL, pid INTEGER NOT NULL)');
        db.prepare('INSERT INTO runs VALUES (1, ?)').run(process.pid);
        failHere(1);
      },
    },
    {
      version: 2,
      does: 'things',
      run(db) {
        db.exec('CREATE TABLE things (n INTEGER NOT NULL)');
        db.prepare(
          'WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000) INSERT INTO things SELECT i FROM n',
        ).run();
        db.prepare('INSERT INTO runs VALUES (2, ?)').run(process.pid);
        failHere(2);
      },
    },
    {
      version: 3,
      does: 'things counted',
      run(db) {
        db.exec("ALTER TABLE things ADD COLUMN label TEXT NOT NULL DEFAULT ''");
        db.prepare('INSERT INTO runs VALUES (3, ?)').run(process.pid);
        failHere(3);
      },
    },
  ];
}
