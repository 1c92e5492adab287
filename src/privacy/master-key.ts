import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { OperatorError } from '../support/operator-errors.js';

/**
 * The master key wraps every data key and environment secret before a store keeps it; it is kept outside the
 * stores (NATURE_MASTER_KEY_FILE), so that a copy of a store reveals no key.
 *
 * A wrapped key: version (1 byte) | master key id (8) | nonce (12) | AES-256-GCM ciphertext of the key (32) | tag (16).
 * The header and a label naming what the key is for (`nature-data-key:<subject id>`) are the associated data,
 * so a blob moved to another subject, or given another header, does not open.
 */
export interface MasterKey {
  /** The first 8 bytes of HMAC-SHA256(key, "nature master key id"), in hex: names the key without revealing it. */
  id: string;
  key: Buffer;
}

export const KEY_LENGTH = 32;
const VERSION = 1;
const ID_LENGTH = 8;
const NONCE_LENGTH = 12;
const TAG_LENGTH = 16;
const HEADER_LENGTH = 1 + ID_LENGTH;
export const WRAPPED_LENGTH = HEADER_LENGTH + NONCE_LENGTH + KEY_LENGTH + TAG_LENGTH;

/** A master key or a wrapped key is wrong in a way the operator fixes (the wrong file, a store restored from elsewhere): one line. */
export class MasterKeyError extends OperatorError {}

/** A wrapped key names a master key that the ring does not hold. */
export class UnknownMasterKeyError extends Error {
  override readonly name = 'UnknownMasterKeyError';
  constructor(readonly keyId: string) {
    super(`master key ${keyId} is not known here`);
  }
}

/** A wrapped key that does not open with the master key it names: altered, or moved from what it was made for. */
export class WrappedKeyError extends Error {
  override readonly name = 'WrappedKeyError';
}

export function masterKey(key: Buffer): MasterKey {
  if (key.length !== KEY_LENGTH) throw new Error(`a master key is ${KEY_LENGTH} bytes, not ${key.length}`);
  return { id: createHmac('sha256', key).update('nature master key id').digest().subarray(0, ID_LENGTH).toString('hex'), key };
}

export const generateMasterKey = () => masterKey(randomBytes(KEY_LENGTH));

/** What a data key or secret is for, bound to its wrapped form. */
export const dataKeyLabel = (subjectId: string) => `nature-data-key:${subjectId}`;
export const secretLabel = (name: string) => `nature-secret:${name}`;

/** A key stored before wrapping: 32 raw bytes, told apart from a wrapped one by its length. */
export const isRawKey = (blob: Buffer) => blob.length === KEY_LENGTH;

/** The id of the master key that wrapped `blob`; undefined for a raw key. */
export function wrappedBy(blob: Buffer): string | undefined {
  if (isRawKey(blob)) return undefined;
  if (blob.length !== WRAPPED_LENGTH || blob[0] !== VERSION)
    throw new WrappedKeyError(`a stored key is neither raw nor wrapped (${blob.length} bytes, version ${blob[0]})`);
  return blob.subarray(1, HEADER_LENGTH).toString('hex');
}

export function wrapKey(master: MasterKey, key: Buffer, label: string): Buffer {
  if (key.length !== KEY_LENGTH) throw new Error(`a data key is ${KEY_LENGTH} bytes, not ${key.length}`);
  const header = Buffer.concat([Buffer.from([VERSION]), Buffer.from(master.id, 'hex')]);
  const nonce = randomBytes(NONCE_LENGTH);
  const cipher = createCipheriv('aes-256-gcm', master.key, nonce);
  cipher.setAAD(Buffer.concat([header, Buffer.from(label, 'utf8')]));
  const sealed = Buffer.concat([cipher.update(key), cipher.final()]);
  return Buffer.concat([header, nonce, sealed, cipher.getAuthTag()]);
}

/** The key `blob` wraps, opened with `master` (the key it names). */
export function unwrapKey(master: MasterKey, blob: Buffer, label: string): Buffer {
  const id = wrappedBy(blob);
  if (id !== master.id)
    throw new WrappedKeyError(`a key wrapped by master key ${id ?? '(none: raw)'} cannot be opened with master key ${master.id}`);
  const header = blob.subarray(0, HEADER_LENGTH);
  const nonce = blob.subarray(HEADER_LENGTH, HEADER_LENGTH + NONCE_LENGTH);
  const sealed = blob.subarray(HEADER_LENGTH + NONCE_LENGTH, HEADER_LENGTH + NONCE_LENGTH + KEY_LENGTH);
  const decipher = createDecipheriv('aes-256-gcm', master.key, nonce);
  decipher.setAAD(Buffer.concat([header, Buffer.from(label, 'utf8')]));
  decipher.setAuthTag(blob.subarray(WRAPPED_LENGTH - TAG_LENGTH));
  try {
    return Buffer.concat([decipher.update(sealed), decipher.final()]);
  } catch {
    throw new WrappedKeyError(
      `the key wrapped for ${label} does not open with master key ${master.id}: altered, or moved from another subject`,
    );
  }
}

/** The master keys a key file holds: the first wraps new keys; the others (during a rotation) still open keys. */
export class MasterKeyRing {
  private readonly byId: Map<string, MasterKey>;

  constructor(readonly keys: readonly [MasterKey, ...MasterKey[]]) {
    this.byId = new Map(keys.map((key) => [key.id, key]));
  }

  get current(): MasterKey {
    return this.keys[0];
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** The key with that id; UnknownMasterKeyError if the ring has none. */
  get(id: string): MasterKey {
    const found = this.byId.get(id);
    if (found === undefined) throw new UnknownMasterKeyError(id);
    return found;
  }

  /** The key `blob` wraps. A raw key is refused: once a store is wrapped, only a rotation reads one (to wrap it). */
  unwrap(blob: Buffer, label: string): Buffer {
    const id = wrappedBy(blob);
    if (id === undefined)
      throw new WrappedKeyError(
        `the key for ${label} is stored unwrapped (by a server older than master keys?): run "nature master-key rotate" to wrap it`,
      );
    return unwrapKey(this.get(id), blob, label);
  }

  /** The file's text: one key a line, in base64. */
  toText(): string {
    return this.keys.map((key) => `${key.key.toString('base64')}\n`).join('');
  }

  /** The ring in a key file's text; MasterKeyError naming `file` (never its content) when a line is not a key. */
  static parse(text: string, file: string): MasterKeyRing {
    const lines = text.split(/\r?\n/).map((line) => line.trim());
    while (lines.at(-1) === '') lines.pop();
    if (lines.length === 0)
      throw new MasterKeyError(`NATURE_MASTER_KEY_FILE ${file} is empty: it must hold a master key, 32 random bytes in base64 on one line`);
    const keys = lines.map((line, index) => {
      const decoded = /^[A-Za-z0-9+/]+={0,2}$/.test(line) ? Buffer.from(line, 'base64') : undefined;
      if (decoded?.length !== KEY_LENGTH || decoded.toString('base64') !== line) {
        const what = line === '' ? 'is empty' : decoded === undefined ? 'is not base64' : `holds ${decoded.length} bytes`;
        throw new MasterKeyError(
          `NATURE_MASTER_KEY_FILE ${file}: line ${index + 1} ${what}; each line must be a master key, 32 random bytes in base64 (44 characters)`,
        );
      }
      return masterKey(decoded);
    });
    return new MasterKeyRing(keys as [MasterKey, ...MasterKey[]]);
  }
}
