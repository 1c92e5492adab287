import { cpSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { onetDir, onetMissing } from '../support/onet-release.js';
import { runCliProcess, spawnFromSource, startServer, waitForOutput } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

// The O*NET release is reference data outside the repository (issue 43): found, or skipped loudly, by onet-release.ts.
const dir = tempDir();
afterAll(() => dir.cleanup());
const dataDir = join(dir.path, 'data');
const nature = (...args: string[]) => runCliProcess(['--data-dir', dataDir, ...args], { NATURE_READ_MODELS: 'sqlite' });

describe.skipIf(onetMissing)('nature careers import, on the shared O*NET release', () => {
  it('installs all or nothing when killed while installing, then imports to the end, picked up by a running server', async () => {
    // A server on the same data directory all along, checking for a new catalogue often.
    const server = await startServer({ NATURE_DATA_DIR: dataDir, NATURE_READ_MODELS: 'sqlite', NATURE_CAREERS_CHECK_MS: '200' });
    onTestFinished(async () => {
      server.process.kill('SIGTERM');
      await server.exited;
    });
    expect(server.output()).toContain('no careers catalogue installed');
    const run = spawnFromSource(['src/cli/main.ts', '--data-dir', dataDir, 'careers', 'import', onetDir], { NATURE_READ_MODELS: 'sqlite' });
    // Killed as it starts installing: the store then holds nothing, or the whole catalogue, which loads; never a part.
    await new Promise<void>((done) => {
      const check = () => {
        if (/installing onet/.test(run.output())) done();
      };
      run.process.stderr.on('data', check);
    });
    run.process.kill('SIGKILL');
    expect(await run.exited).toBe('SIGKILL');
    const killed = nature('careers', 'status', '--json');
    expect(killed.status, killed.stderr).toBe(0);
    const { installed } = JSON.parse(killed.stdout) as { installed: { version: string; occupations: number } | null };
    if (installed !== null) expect(installed).toMatchObject({ version: 'onet-27.0/careers-map-v1', occupations: 1016 });

    const imported = nature('careers', 'import', onetDir);
    expect(imported.status, imported.stderr).toBe(0);
    expect(imported.stderr).toMatch(/reading .*\n.*building the catalogue of O\*NET 27\.0.*\n.*installing onet-27\.0\/careers-map-v1/);
    // Installed now, or found installed whole already when the kill came after the commit.
    expect(imported.stdout).toMatch(
      installed === null
        ? /^careers catalogue onet-27\.0\/careers-map-v1 installed as cat_\w+; running servers pick it up within 5 s\n/
        : /^nothing changed: careers catalogue onet-27\.0\/careers-map-v1 is installed already/,
    );
    expect(imported.stdout).toContain('  occupations: 1016\n');
    expect(imported.stdout).toMatch(/ {2}titles: \d{5} careers \(4\d{4} distinct titles/);
    expect(imported.stdout).toMatch(/ {2}occupations without enough data to profile: \d+\n/);

    const status = nature('careers', 'status', '--json');
    expect(JSON.parse(status.stdout)).toMatchObject({ installed: { version: 'onet-27.0/careers-map-v1', occupations: 1016 } });
    // Picked up without a restart.
    await waitForOutput(server, /careers catalogue loaded/);
    expect(server.output()).toContain(JSON.parse(status.stdout).installed.id);
  });

  it('changes nothing when the same release is imported again', () => {
    const before = JSON.parse(nature('careers', 'status', '--json').stdout) as { installed: { id: string } };
    const again = nature('careers', 'import', onetDir);
    expect(again.status, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^nothing changed: careers catalogue onet-27\.0\/careers-map-v1 is installed already, the same \(cat_/);
    expect(JSON.parse(nature('careers', 'status', '--json').stdout).installed.id).toBe(before.installed.id);
  });

  it('imports the release zipped as O*NET ships it (a folder db_27_0_text/ inside)', () => {
    const files = Object.fromEntries(
      readdirSync(onetDir)
        .filter((name) => name.endsWith('.txt'))
        .map((name) => [`db_27_0_text/${name}`, new Uint8Array(readFileSync(join(onetDir, name)))]),
    );
    const zip = join(dir.path, 'db_27_0_text.zip');
    writeFileSync(zip, zipSync(files));
    const fresh = join(dir.path, 'zipped');
    const imported = runCliProcess(['--data-dir', fresh, 'careers', 'import', '--json', zip], { NATURE_READ_MODELS: 'sqlite' });
    expect(imported.status, imported.stderr).toBe(0);
    const installed = JSON.parse(imported.stdout) as Record<string, unknown>;
    expect(installed).toMatchObject({ changed: true, version: 'onet-27.0/careers-map-v1', occupations: 1016 });
    // The same content as the folder's import: the same digest.
    expect(installed.digest).toBe(JSON.parse(nature('careers', 'status', '--json').stdout).installed.digest);
  });

  it('refuses a release missing a file in one line naming it, and changes nothing', () => {
    const partial = join(dir.path, 'partial');
    cpSync(onetDir, partial, { recursive: true });
    rmSync(join(partial, 'Alternate Titles.txt'), { force: true });
    const before = nature('careers', 'status').stdout;
    const refused = nature('careers', 'import', partial);
    expect(refused.status).toBe(1);
    expect(refused.stderr.split('\n').filter((line) => line.startsWith('nature: '))).toEqual([
      `nature: ${partial}: the release has no "Alternate Titles.txt"`,
    ]);
    expect(nature('careers', 'status').stdout).toBe(before);
  });

  it('refuses a path that is no release, and a file that is no zip', () => {
    const refused = nature('careers', 'import', join(dir.path, 'nowhere'));
    expect(refused.status).toBe(1);
    expect(refused.stderr.split('\n').filter((line) => line.startsWith('nature: '))).toEqual([
      `nature: no such folder or zip: ${join(dir.path, 'nowhere')}`,
    ]);
    const notZip = join(dir.path, 'notes.zip');
    writeFileSync(notZip, 'not a zip at all');
    const unreadable = nature('careers', 'import', notZip);
    expect(unreadable.status).toBe(1);
    expect(unreadable.stderr).toMatch(new RegExp(`\\nnature: ${notZip} is neither a folder nor a zip that can be read: .+\\n$`));
  });
});
