import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { hostname } from 'node:os';
import type { StoredBlob, WrappedKeyStore } from '../ports/data-keys.js';
import { holderGone } from '../support/process-alive.js';
import {
  generateMasterKey,
  MasterKeyError,
  MasterKeyRing,
  UnknownMasterKeyError,
  WrappedKeyError,
  wrapKey,
  wrappedBy,
} from './master-key.js';
import type { MasterKeyFile } from './master-key-file.js';
import { labelOf, openAnyBlob, storedBlobs } from './wrapped-data-keys.js';

/** A store the rotation re-wraps, by the name a report gives it (an environment). */
export interface RotatedStore {
  name: string;
  store: WrappedKeyStore;
}

export interface RotationSummary {
  from: string;
  to: string;
  /** Whether this run finished a rotation that an interrupted run had begun. */
  resumed: boolean;
  /** Blobs re-wrapped by this run, per store. */
  rewrapped: Record<string, number>;
}

/** More passes than this means a store keeps changing what a pass re-wraps: something is wrong. */
const MAX_PASSES = 100;

/**
 * Replaces the master key of every store, while servers run, crash-safe and resumable:
 * 1. the key file is rewritten with the new key first and the old one second (a server that meets the new id
 *    reads the file again and knows both);
 * 2. each store records the new id: from then on every new blob is wrapped by it (the store orders this with
 *    blob creation, so no blob wrapped by the old key is still to come);
 * 3. every blob wrapped by the old key (or stored raw) is re-wrapped by compare-and-set, pass after pass, until
 *    a pass finds none;
 * 4. the key file is rewritten with the new key alone: a copy of the old file opens nothing any more.
 * A run that finds two keys in the file finishes that rotation (from step 2) instead of starting another.
 */
export async function rotateMasterKey(file: MasterKeyFile, stores: RotatedStore[]): Promise<RotationSummary> {
  return withRotationLock(file.path, async () => {
    // As the last rotation left it, if one ran since the file was read.
    file.refresh();
    const resumed = file.ring.keys.length > 1;
    const from = (resumed ? file.ring.keys[1]! : file.ring.current).id;
    for (const { store } of stores) await refuseUnknownRecord(store, file);
    if (!resumed) file.replace(new MasterKeyRing([generateMasterKey(), file.ring.current]));
    const ring = file.ring;
    for (const { store } of stores) if ((await store.masterKeyId()) !== ring.current.id) await store.recordMasterKeyId(ring.current.id);
    const rewrapped: Record<string, number> = {};
    for (const { name, store } of stores) rewrapped[name] = await rewrapAll(store, ring);
    file.replace(new MasterKeyRing([ring.current]));
    return { from, to: ring.current.id, resumed, rewrapped };
  });
}

/** A store must record a key of the file (or nothing, if it holds nothing yet): else the file is the wrong one. */
async function refuseUnknownRecord(store: WrappedKeyStore, file: MasterKeyFile): Promise<void> {
  const recorded = await store.masterKeyId();
  if (recorded !== undefined && file.ring.has(recorded)) return;
  if (recorded !== undefined) {
    throw new MasterKeyError(
      `the data keys in ${store.location} are wrapped by master key ${recorded}, which NATURE_MASTER_KEY_FILE ${file.path} does not hold: nothing was changed`,
    );
  }
  for await (const page of storedBlobs(store)) {
    if (page.length > 0)
      throw new MasterKeyError(
        `${store.location} holds keys stored before master keys: start the server once (it wraps them), then rotate`,
      );
  }
}

/** Passes over the store, re-wrapping by `ring.current` every blob another key wraps, until a pass finds none. */
async function rewrapAll(store: WrappedKeyStore, ring: MasterKeyRing): Promise<number> {
  let total = 0;
  for (let pass = 0; pass < MAX_PASSES; pass += 1) {
    let found = 0;
    for await (const page of storedBlobs(store)) {
      const stale = page.filter(({ blob }) => wrappedBy(blob) !== ring.current.id);
      if (stale.length === 0) continue;
      found += stale.length;
      total += await store.rewrap(stale.map((blob) => ({ kind: blob.kind, name: blob.name, from: blob.blob, to: rewrapped(ring, blob) })));
    }
    if (found === 0) return total;
  }
  throw new Error(`${store.location} still held keys wrapped by an old master key after ${MAX_PASSES} passes`);
}

function rewrapped(ring: MasterKeyRing, blob: StoredBlob): Buffer {
  const label = labelOf(blob.kind, blob.name);
  let key: Buffer;
  try {
    key = openAnyBlob(ring, blob);
  } catch (error) {
    if (!(error instanceof WrappedKeyError || error instanceof UnknownMasterKeyError)) throw error;
    throw new MasterKeyError(
      `the key for ${label} does not open with the master key file's keys (${error.message}); the rotation stopped half-way, safely: run it again once that key is dealt with`,
    );
  }
  return wrapKey(ring.current, key, label);
}

/**
 * One rotation at a time per key file: two at once would each make a new key and one would lose the other's.
 * The lock names its holder; one left by a process of this host that is gone is taken over.
 */
async function withRotationLock<T>(keyFile: string, work: () => Promise<T>): Promise<T> {
  const lock = `${keyFile}.lock`;
  const holder = `${hostname()} ${process.pid}`;
  take(lock, holder);
  try {
    return await work();
  } finally {
    unlinkSync(lock);
  }
}

function take(lock: string, holder: string, retried = false): void {
  try {
    const fd = openSync(lock, 'wx', 0o600);
    writeSync(fd, `${holder}\n`);
    closeSync(fd);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EEXIST' || retried) throw new MasterKeyError(`the rotation lock ${lock} cannot be made (${code ?? String(error)})`);
    const [host, pid] = readFileSync(lock, 'utf8').trim().split(' ');
    if (!holderGone({ pid: Number(pid), host })) {
      throw new MasterKeyError(
        `another master key rotation runs (pid ${pid} on ${host}, by ${lock}); if it is gone, remove that file and run this again`,
      );
    }
    unlinkSync(lock);
    take(lock, holder, true);
  }
}
