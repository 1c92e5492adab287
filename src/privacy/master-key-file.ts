import { randomBytes } from 'node:crypto';
import { closeSync, fsyncSync, linkSync, openSync, readFileSync, renameSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';
import { currentUser } from '../support/operator-errors.js';
import { generateMasterKey, MasterKeyError, MasterKeyRing } from './master-key.js';

type ErrnoException = NodeJS.ErrnoException & { code: string };

/** Where a store holds a key wrapped by a master key, for the message that refuses to make a new one. */
export interface WrappedKeyHeld {
  location: string;
  keyId: string;
}

/** What a failed read or write of the key file means, in one line that names the setting and never the key. */
function fileProblem(path: string, error: ErrnoException): MasterKeyError {
  const subject = `NATURE_MASTER_KEY_FILE ${path}`;
  switch (error.code) {
    case 'EACCES':
    case 'EPERM':
      return new MasterKeyError(`${subject} cannot be read or written by this user (${currentUser()}) (${error.code})`);
    case 'EISDIR':
      return new MasterKeyError(`${subject} is a directory, not a file (EISDIR)`);
    case 'ENOENT':
      return new MasterKeyError(`${subject} cannot be made: its directory ${dirname(path)} does not exist (ENOENT)`);
    case 'EROFS':
      return new MasterKeyError(`${subject} is on a read-only file system (EROFS)`);
    default:
      return new MasterKeyError(`${subject} cannot be used (${error.code}: ${error.message})`);
  }
}

/** Which version of the file was read: a rename (every write here is one) changes the inode. */
function signature(path: string): string {
  const stat = statSync(path);
  return `${stat.ino}:${stat.size}:${stat.mtimeMs}`;
}

/** `text` in a new file at `path` (mode 0600), on disk before this returns. */
function writeNew(path: string, text: string): void {
  const fd = openSync(path, 'wx', 0o600);
  try {
    writeSync(fd, text);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** The directory entry of a file just linked or renamed, on disk. */
function syncDirectory(path: string): void {
  const fd = openSync(dirname(path), 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * The master key file (NATURE_MASTER_KEY_FILE): one master key a line, in base64; the first wraps new keys.
 * During a rotation it holds the new key and the old one. A process reads it again when it meets a key id it
 * does not know (refresh), so that servers go on serving while `nature master-key rotate` runs.
 */
export class MasterKeyFile {
  private constructor(
    readonly path: string,
    private loaded: { ring: MasterKeyRing; version: string },
  ) {}

  get ring(): MasterKeyRing {
    return this.loaded.ring;
  }

  /** The file as it is now; undefined if there is none. */
  static read(path: string): MasterKeyFile | undefined {
    try {
      return new MasterKeyFile(path, MasterKeyFile.load(path));
    } catch (error) {
      if ((error as ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  private static load(path: string): { ring: MasterKeyRing; version: string } {
    try {
      const version = signature(path);
      return { ring: MasterKeyRing.parse(readFileSync(path, 'utf8'), path), version };
    } catch (error) {
      const code = (error as Partial<ErrnoException>).code;
      if (code === undefined || code === 'ENOENT') throw error;
      throw fileProblem(path, error as ErrnoException);
    }
  }

  /**
   * The file at `path`; where there is none, a new one with a new key, unless `held` finds a key already
   * wrapped by a master key (the file was lost, or is not where it is looked for): then nothing is made,
   * and the start stops with one line. Two processes making it at once end with the same file (no clobber).
   */
  static async open(path: string, held: () => Promise<WrappedKeyHeld | undefined>): Promise<MasterKeyFile> {
    const existing = MasterKeyFile.read(path);
    if (existing !== undefined) return existing;
    const wrapped = await held();
    if (wrapped !== undefined) {
      throw new MasterKeyError(
        `NATURE_MASTER_KEY_FILE ${path} is missing; the data keys in ${wrapped.location} are wrapped by master key ${wrapped.keyId}: ` +
          'restore that file, or set NATURE_MASTER_KEY_FILE to where it is',
      );
    }
    const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      writeNew(temporary, new MasterKeyRing([generateMasterKey()]).toText());
      linkSync(temporary, path);
      syncDirectory(path);
    } catch (error) {
      if ((error as ErrnoException).code !== 'EEXIST') throw fileProblem(path, error as ErrnoException);
    } finally {
      try {
        unlinkSync(temporary);
      } catch {
        // Never written.
      }
    }
    return new MasterKeyFile(path, MasterKeyFile.load(path));
  }

  /** Reads the file again if it was replaced since it was read; whether the keys changed. The old keys stay if it cannot be read. */
  refresh(): boolean {
    try {
      if (signature(this.path) === this.loaded.version) return false;
      const before = this.ring.keys.map((key) => key.id).join();
      this.loaded = MasterKeyFile.load(this.path);
      return this.ring.keys.map((key) => key.id).join() !== before;
    } catch {
      return false;
    }
  }

  /** Replaces the file with `ring`, atomically (a new file, then a rename): a crash leaves the old file or the new one. */
  replace(ring: MasterKeyRing): void {
    const temporary = `${this.path}.tmp`;
    try {
      unlinkSync(temporary);
    } catch {
      // None left by an interrupted run.
    }
    try {
      writeNew(temporary, ring.toText());
      renameSync(temporary, this.path);
      syncDirectory(this.path);
    } catch (error) {
      throw fileProblem(this.path, error as ErrnoException);
    }
    this.loaded = MasterKeyFile.load(this.path);
  }
}
