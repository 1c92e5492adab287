import { accessSync, chmodSync, constants, mkdirSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { currentUser, databaseProblem, fileProblem, OperatorError } from './operator-errors.js';

/** The stores' SQLite files and their WAL companions. */
const STORE_FILE = /\.db(-wal|-shm)?$/;
/** As long as the stores wait for a lock held by another process. */
const LOCK_WAIT_MS = 5000;

type ErrnoException = NodeJS.ErrnoException & { code: string };

function storeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && STORE_FILE.test(entry.name))
    .map((entry) => join(dir, entry.name));
}

function readableAndWritable(path: string, subject: string, mode = constants.R_OK | constants.W_OK, mayVanish = false): void {
  try {
    accessSync(path, mode);
  } catch (error) {
    if (mayVanish && (error as ErrnoException).code === 'ENOENT') return;
    throw new OperatorError(fileProblem(subject, error as ErrnoException));
  }
}

/** Opens the database and reads its schema: a damaged file or one locked by another process fails here. */
function probeDatabase(path: string): void {
  try {
    const db = new Database(path, { fileMustExist: true, timeout: LOCK_WAIT_MS });
    try {
      db.prepare('SELECT count(*) FROM sqlite_master').get();
    } finally {
      db.close();
    }
  } catch (error) {
    throw new OperatorError(databaseProblem(path, error as ErrnoException));
  }
}

/**
 * Fails unless the data directory and every store file in it can be read and written: a disk remounted
 * read-only, or permissions changed, would fail every write. For readiness too.
 */
export function checkDataDirWritable(dir: string): void {
  const subject = `the data directory ${dir}`;
  if (!statSync(dir).isDirectory()) throw new OperatorError(`${subject} is not a directory`);
  readableAndWritable(dir, subject, constants.R_OK | constants.W_OK | constants.X_OK);
  // Another process on the directory (a replica, the operator command) may remove a WAL or shm file between the
  // listing and the check, as SQLite does when its last connection closes: gone is not unwritable.
  for (const file of storeFiles(dir)) readableAndWritable(file, file, constants.R_OK | constants.W_OK, true);
}

/**
 * Narrows `path` to its owner's bits, if it is this user's and open to others. A file of the directory may go
 * between the listing and here (a replica's SQLite removes its journal or WAL as it commits or closes): gone is
 * as good as narrowed.
 */
function narrow(path: string, mayVanish = false): void {
  try {
    const { mode, uid } = statSync(path);
    if ((mode & 0o077) !== 0 && uid === process.getuid?.()) chmodSync(path, mode & 0o700);
  } catch (error) {
    if (!(mayVanish && (error as ErrnoException).code === 'ENOENT')) throw error;
  }
}

/**
 * The data directory and what is in it (password hashes, wrapped keys, the master key, sealed personal data) are
 * for this user alone: 0700 and 0600 as the stores make them, and so is what an older version left open.
 */
function ownerOnly(dir: string): void {
  narrow(dir);
  for (const entry of readdirSync(dir, { withFileTypes: true })) if (entry.isFile()) narrow(join(dir, entry.name), true);
}

/**
 * Checks the data directory before a store opens it, so that start-up (or an operator command) stops
 * with one line naming the directory or file instead of failing on every write later: a directory this
 * user can read and write (created when `create`), whose store files are readable and writable and open
 * as SQLite databases that no other process holds locked.
 */
export function checkDataDir(dir: string, { create }: { create: boolean }): void {
  const subject = `the data directory ${dir}`;
  try {
    if (create) mkdirSync(dir, { recursive: true, mode: 0o700 });
    statSync(dir);
  } catch (error) {
    const problem = error as ErrnoException;
    throw new OperatorError(
      problem.code === 'EACCES' ? `${subject} cannot be created by this user (${currentUser()}) (EACCES)` : fileProblem(subject, problem),
    );
  }
  checkDataDirWritable(dir);
  if (create) ownerOnly(dir);
  for (const file of storeFiles(dir)) if (file.endsWith('.db')) probeDatabase(file);
}
