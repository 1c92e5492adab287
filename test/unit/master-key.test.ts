import { createHmac, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  dataKeyLabel,
  generateMasterKey,
  MasterKeyError,
  MasterKeyRing,
  masterKey,
  secretLabel,
  UnknownMasterKeyError,
  unwrapKey,
  WRAPPED_LENGTH,
  WrappedKeyError,
  wrapKey,
  wrappedBy,
} from '../../src/privacy/master-key.js';
import { MasterKeyFile } from '../../src/privacy/master-key-file.js';
import { OperatorError } from '../../src/support/operator-errors.js';
import { tempDir } from '../support/temp-dir.js';

describe('master key id', () => {
  it('is the first 8 bytes of HMAC-SHA256(key, "nature master key id"), in hex, the same for the same key', () => {
    const key = randomBytes(32);
    const expected = createHmac('sha256', key).update('nature master key id').digest().subarray(0, 8).toString('hex');
    expect(masterKey(key).id).toBe(expected);
    expect(masterKey(Buffer.from(key)).id).toBe(expected);
    expect(expected).toMatch(/^[0-9a-f]{16}$/);
    expect(generateMasterKey().id).not.toBe(expected);
  });

  it('is made of 32-byte keys only', () => {
    expect(() => masterKey(randomBytes(16))).toThrow(/32 bytes/);
  });
});

describe('wrapping a data key', () => {
  const master = generateMasterKey();
  const dataKey = randomBytes(32);
  const label = dataKeyLabel('sub_1');
  const wrapped = wrapKey(master, dataKey, label);

  it('is version | key id | nonce | ciphertext | tag, and opens with the same key and label', () => {
    expect(wrapped).toHaveLength(WRAPPED_LENGTH);
    expect(WRAPPED_LENGTH).toBe(1 + 8 + 12 + 32 + 16);
    expect(wrapped[0]).toBe(1);
    expect(wrapped.subarray(1, 9).toString('hex')).toBe(master.id);
    expect(wrappedBy(wrapped)).toBe(master.id);
    expect(wrapped.includes(dataKey)).toBe(false);
    expect(unwrapKey(master, wrapped, label).equals(dataKey)).toBe(true);
    // A fresh nonce each time.
    expect(wrapKey(master, dataKey, label).equals(wrapped)).toBe(false);
  });

  it('refuses a blob with any byte altered: version, key id, nonce, ciphertext or tag', () => {
    for (const offset of [0, 1, 8, 9, 20, 21, 40, 52, 53, 68]) {
      const tampered = Buffer.from(wrapped);
      tampered[offset]! ^= 0x01;
      expect(() => unwrapKey(master, tampered, label), `byte ${offset}`).toThrow(WrappedKeyError);
    }
    expect(() => unwrapKey(master, wrapped.subarray(0, WRAPPED_LENGTH - 1), label)).toThrow(WrappedKeyError);
  });

  it('refuses a blob moved to another subject, or offered as a secret', () => {
    expect(() => unwrapKey(master, wrapped, dataKeyLabel('sub_2'))).toThrow(WrappedKeyError);
    expect(() => unwrapKey(master, wrapped, secretLabel('environment'))).toThrow(WrappedKeyError);
  });

  it('refuses to open with another master key, even one given the same id', () => {
    const other = generateMasterKey();
    expect(() => unwrapKey(other, wrapped, label)).toThrow(/wrapped by master key .* cannot be opened with master key/);
    expect(() => unwrapKey({ id: master.id, key: other.key }, wrapped, label)).toThrow(WrappedKeyError);
  });

  it('tells a raw 32-byte key (stored before wrapping) from a wrapped one, and refuses any other shape', () => {
    expect(wrappedBy(randomBytes(32))).toBeUndefined();
    expect(() => wrappedBy(randomBytes(40))).toThrow(WrappedKeyError);
    const otherVersion = Buffer.from(wrapped);
    otherVersion[0] = 2;
    expect(() => wrappedBy(otherVersion)).toThrow(/version 2/);
  });
});

describe('a ring of master keys', () => {
  const [newer, older] = [generateMasterKey(), generateMasterKey()];
  const ring = new MasterKeyRing([newer, older]);

  it('opens keys wrapped by any of its keys; the first is current', () => {
    expect(ring.current).toBe(newer);
    const byOld = wrapKey(older, randomBytes(32), dataKeyLabel('sub_1'));
    expect(ring.unwrap(byOld, dataKeyLabel('sub_1'))).toHaveLength(32);
    expect(ring.has(older.id)).toBe(true);
  });

  it('says which id it does not know, and refuses a raw key', () => {
    const stranger = generateMasterKey();
    const error = (() => {
      try {
        ring.unwrap(wrapKey(stranger, randomBytes(32), 'x'), 'x');
      } catch (thrown) {
        return thrown;
      }
    })();
    expect(error).toBeInstanceOf(UnknownMasterKeyError);
    expect((error as UnknownMasterKeyError).keyId).toBe(stranger.id);
    expect(() => ring.unwrap(randomBytes(32), 'x')).toThrow(/stored unwrapped/);
  });

  it('is written one base64 key a line and read back in the same order', () => {
    const text = ring.toText();
    expect(text.split('\n')).toEqual([newer.key.toString('base64'), older.key.toString('base64'), '']);
    expect(MasterKeyRing.parse(text, '/k').keys.map((key) => key.id)).toEqual([newer.id, older.id]);
    expect(MasterKeyRing.parse(text.replaceAll('\n', '\r\n'), '/k').keys).toHaveLength(2);
    expect(MasterKeyRing.parse(`${newer.key.toString('base64')}`, '/k').current.id).toBe(newer.id);
  });
});

describe('parsing a master key file', () => {
  const good = randomBytes(32).toString('base64');
  const cases: [string, string, RegExp][] = [
    ['empty', '', /NATURE_MASTER_KEY_FILE \/etc\/nature\/master\.key is empty: it must hold a master key, 32 random bytes in base64/],
    ['blank lines only', '\n\n  \n', /is empty/],
    [
      'not base64',
      'this is not a key at all!',
      /line 1 is not base64; each line must be a master key, 32 random bytes in base64 \(44 characters\)/,
    ],
    ['too short', randomBytes(16).toString('base64'), /line 1 holds 16 bytes/],
    ['too long', randomBytes(48).toString('base64'), /line 1 holds 48 bytes/],
    ['hex, not base64', randomBytes(32).toString('hex'), /line 1 holds 48 bytes/],
    ['a bad second line', `${good}\nnot a key`, /line 2 is not base64/],
    ['a blank line between keys', `${good}\n\n${good}`, /line 2 is empty/],
  ];
  it.each(cases)('refuses a file that is %s, in one line that never shows its content', (_, text, message) => {
    let error: unknown;
    try {
      MasterKeyRing.parse(text, '/etc/nature/master.key');
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(MasterKeyError);
    expect(error).toBeInstanceOf(OperatorError);
    const shown = (error as Error).message;
    expect(shown).toMatch(message);
    expect(shown).not.toContain('\n');
    for (const line of text.split('\n').filter((line) => line.trim().length > 4)) expect(shown).not.toContain(line.trim());
  });

  it('accepts surrounding whitespace and a final newline', () => {
    expect(MasterKeyRing.parse(`  ${good}  \n`, '/k').keys).toHaveLength(1);
  });
});

describe('the master key file', () => {
  let dir: ReturnType<typeof tempDir>;
  let path: string;
  beforeEach(() => {
    dir = tempDir();
    path = join(dir.path, 'master.key');
  });
  afterEach(() => dir.cleanup());
  const nothingHeld = async () => undefined;

  it('is made on first open with one new key, mode 0600, leaving no temporary file', async () => {
    const file = await MasterKeyFile.open(path, nothingHeld);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(readFileSync(path, 'utf8')).toMatch(/^[A-Za-z0-9+/]{43}=\n$/);
    expect(file.ring.keys).toHaveLength(1);
    expect(readdirSync(dir.path)).toEqual(['master.key']);
    // Opened again: the same key.
    expect((await MasterKeyFile.open(path, nothingHeld)).ring.current.id).toBe(file.ring.current.id);
  });

  it('is made once when two processes open it at once: both end with the same key', async () => {
    const opened = await Promise.all(Array.from({ length: 5 }, () => MasterKeyFile.open(path, nothingHeld)));
    expect(new Set(opened.map((file) => file.ring.current.id)).size).toBe(1);
    expect(readdirSync(dir.path)).toEqual(['master.key']);
  });

  it('is never made while a store holds keys wrapped by a master key: one line says which', async () => {
    const refusal = MasterKeyFile.open(path, async () => ({ location: '/srv/nature/sandbox.data-keys.db', keyId: '0123456789abcdef' }));
    await expect(refusal).rejects.toThrow(
      new MasterKeyError(
        `NATURE_MASTER_KEY_FILE ${path} is missing; the data keys in /srv/nature/sandbox.data-keys.db are wrapped by master key 0123456789abcdef: restore that file, or set NATURE_MASTER_KEY_FILE to where it is`,
      ),
    );
    expect(existsSync(path)).toBe(false);
  });

  it('says so in one line when it cannot be read or made', async () => {
    mkdirSync(path);
    await expect(MasterKeyFile.open(path, nothingHeld)).rejects.toThrow(
      /^NATURE_MASTER_KEY_FILE .*master\.key is a directory, not a file \(EISDIR\)$/,
    );
    const nowhere = join(dir.path, 'no-such-dir', 'master.key');
    await expect(MasterKeyFile.open(nowhere, nothingHeld)).rejects.toThrow(
      /cannot be made: its directory .*no-such-dir does not exist \(ENOENT\)$/,
    );
  });

  it('is read again only once replaced, and replaced atomically', async () => {
    const file = await MasterKeyFile.open(path, nothingHeld);
    expect(file.refresh()).toBe(false);
    const reader = MasterKeyFile.read(path)!;
    const next = new MasterKeyRing([generateMasterKey(), file.ring.current]);
    file.replace(next);
    expect(readdirSync(dir.path)).toEqual(['master.key']);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(reader.refresh()).toBe(true);
    expect(reader.ring.keys.map((key) => key.id)).toEqual(next.keys.map((key) => key.id));
    expect(reader.refresh()).toBe(false);
    expect(MasterKeyFile.read(join(dir.path, 'absent.key'))).toBeUndefined();
  });

  it('keeps the keys it has when the file turns unreadable', async () => {
    const file = await MasterKeyFile.open(path, nothingHeld);
    const id = file.ring.current.id;
    writeFileSync(path, 'garbage that is not a key\n');
    expect(file.refresh()).toBe(false);
    expect(file.ring.current.id).toBe(id);
  });
});
