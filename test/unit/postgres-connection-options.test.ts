import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectionOptionsOf } from '../../src/adapters/postgres/connection-options.js';
import { checkServerVersion } from '../../src/adapters/postgres/probe.js';
import { loadConfig } from '../../src/settings/config.js';
import { backendProblem } from '../../src/support/operator-errors.js';
import { tempDir } from '../support/temp-dir.js';

const dir = tempDir('nature-pg-options-');
afterAll(() => dir.cleanup());
const file = (name: string, text: string) => {
  const path = join(dir.path, name);
  writeFileSync(path, text);
  return path;
};
const failure = (work: () => unknown) => {
  try {
    work();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('did not throw');
};

describe("the PostgreSQL driver's options from POSTGRES_URL and POSTGRES_PASSWORD_FILE, as libpq reads them", () => {
  it('reads sslrootcert as a CA file and keeps it and sslmode from the server, the other parameters kept', () => {
    const ca = file('ca.pem', 'CA PEM');
    const options = connectionOptionsOf({
      url: `postgres://nature@db1:5432/nature?sslmode=verify-full&sslrootcert=${ca}&target_session_attrs=read-write`,
    });
    expect(options).toEqual({
      url: 'postgres://nature@db1:5432/nature?target_session_attrs=read-write',
      ssl: { ca: 'CA PEM', rejectUnauthorized: true, host: 'db1' },
    });
  });

  it('checks the chain without the host for verify-ca, and for require with a CA file, as libpq does', () => {
    const ca = file('ca.pem', 'CA PEM');
    for (const mode of ['verify-ca', 'require']) {
      const { ssl } = connectionOptionsOf({ url: `postgres://db1/nature?sslmode=${mode}&sslrootcert=${ca}` });
      expect(ssl).toMatchObject({ ca: 'CA PEM', rejectUnauthorized: true });
      expect((ssl as { checkServerIdentity: () => unknown }).checkServerIdentity()).toBeUndefined();
    }
    expect(connectionOptionsOf({ url: 'postgres://db1/nature?sslmode=require' }).ssl).toBe('require');
    expect(connectionOptionsOf({ url: 'postgres://db1/nature?sslmode=disable' }).ssl).toBe(false);
    expect(connectionOptionsOf({ url: 'postgres://db1/nature' })).toEqual({ url: 'postgres://db1/nature' });
  });

  it('refuses what it cannot honour in one line: an unknown mode, client certificates, addresses among several verified hosts', () => {
    expect(failure(() => connectionOptionsOf({ url: 'postgres://db1/n?sslmode=verify' }))).toMatch(
      /^POSTGRES_URL sslmode=verify is not one of disable, allow, prefer, require, verify-ca, verify-full$/,
    );
    expect(failure(() => connectionOptionsOf({ url: 'postgres://db1/n?sslcert=/c.pem' }))).toMatch(
      /^POSTGRES_URL sslcert is not supported/,
    );
    expect(failure(() => connectionOptionsOf({ url: 'postgres://10.0.0.1:5432,10.0.0.2:5432/n?sslmode=verify-full' }))).toMatch(
      /^POSTGRES_URL sslmode=verify-full with several hosts needs host names/,
    );
    expect(connectionOptionsOf({ url: 'postgres://db1:5432,db2:5432/n?sslmode=verify-full' }).ssl).toMatchObject({
      rejectUnauthorized: true,
    });
  });

  it('reads the password file once, without its trailing newline, and names it when it cannot', () => {
    expect(connectionOptionsOf({ url: 'postgres://nature@db1/nature', passwordFile: file('pw', 's3cret pw\n') }).pass).toBe('s3cret pw');
    expect(failure(() => connectionOptionsOf({ url: 'postgres://db1/n', passwordFile: file('empty', '\n') }))).toMatch(
      /^POSTGRES_PASSWORD_FILE .*empty is empty$/,
    );
    expect(failure(() => connectionOptionsOf({ url: 'postgres://db1/n', passwordFile: join(dir.path, 'none') }))).toMatch(
      /^POSTGRES_PASSWORD_FILE .*none does not exist \(ENOENT\)$/,
    );
  });

  it('takes the password from the URL or the file, never both', () => {
    const settings = { NATURE_EVENT_STORE: 'postgres', POSTGRES_PASSWORD_FILE: 'secrets/pg' };
    expect(loadConfig({ ...settings, POSTGRES_URL: 'postgres://nature@db1/nature' }).eventStore).toEqual({
      kind: 'postgres',
      url: 'postgres://nature@db1/nature',
      passwordFile: join(process.cwd(), 'secrets/pg'),
    });
    const refused = failure(() => loadConfig({ ...settings, POSTGRES_URL: 'postgres://nature:s3cret@db1/nature' }));
    expect(refused).toBe('configuration error: POSTGRES_URL has a password and POSTGRES_PASSWORD_FILE gives one: give it in one of them');
  });
});

describe('the oldest PostgreSQL the service runs on', () => {
  it('refuses a server below 14 in a line naming POSTGRES_URL, and takes 14 and every later one', () => {
    for (const version of ['140000', '140015', '150010', '170002']) expect(() => checkServerVersion(version)).not.toThrow();
    const refusal = (() => {
      try {
        checkServerVersion('130016');
      } catch (error) {
        return error;
      }
    })();
    const line = backendProblem(
      { name: 'PostgreSQL', variable: 'POSTGRES_URL', url: 'postgres://nature:s3cret@db1:5432/nature' },
      refusal,
      10_000,
    );
    expect(line).toBe(
      'PostgreSQL at db1:5432 (POSTGRES_URL) runs version 13; the service needs PostgreSQL 14 or newer; upgrade the server',
    );
    expect(() => checkServerVersion('90624')).toThrow(/^runs version 9;/);
  });
});
