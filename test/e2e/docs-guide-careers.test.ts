import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { gettingStarted, inCheckout, ofLang, runBlocksIn, servedGuide, typescriptDiagnostics } from '../support/docs-blocks.js';
import { shapeOf } from '../support/guide-programs.js';
import { onetDir, onetMissing } from '../support/onet-release.js';
import { callServer, type ServerProcess, spawnFromSource, startServer } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

if (onetMissing) console.warn(`!!! /docs/careers NOT RUN: its blocks need the O*NET release, absent at ${onetDir} (see onet-release.ts).`);

/** The JSON values `jq` printed one after another, pretty (each object from a `{` line to a `}` line). */
const jqObjects = (text: string): Record<string, any>[] =>
  [...text.matchAll(/^\{\n[\s\S]*?\n\}$/gm)].map((match) => JSON.parse(match[0]) as Record<string, any>);

describe.skipIf(onetMissing)(
  '/docs/careers, every block run as the reader pastes it, against a real server with O*NET imported, twice',
  () => {
    const dir = tempDir();
    let server: ServerProcess;
    let key: string;
    const api = (method: string, path: string, body?: unknown) => callServer(server, key, method, path, body);

    beforeAll(async () => {
      // The operator's step the guide names: `nature careers import PATH`, once, on the server's data.
      const imported = spawnFromSource(['src/cli/main.ts', 'careers', 'import', onetDir], { NATURE_DATA_DIR: dir.path });
      expect(await imported.exited, imported.output()).toBe(0);
      server = await startServer({ NATURE_DATA_DIR: dir.path });
      // The test's own key, to ask the API what the blocks should have shown.
      const minted = await runCliInProcess(keyCreateArgs('test', 'docs test', ['careers:read', 'nature:read']), {
        NATURE_DATA_DIR: dir.path,
      });
      key = JSON.parse(minted.stdout).key as string;
    }, 300_000);
    afterAll(async () => {
      server?.process.kill('SIGKILL');
      await server?.exited;
      dir.cleanup();
    });

    it('searches and matches in the shell and with the client, as the API answers; a career is shaped as shown', async () => {
      const blocks = await servedGuide(server, 'careers');
      expect(blocks.map((block) => block.lang)).toEqual(['sh', 'ts', 'json']);
      const [shell] = ofLang(blocks, 'sh');
      const [typescript] = ofLang(blocks, 'ts');
      const reader = await gettingStarted(server);

      // The search and the match the blocks make, asked of the API by the test.
      const searched = (await api('GET', '/v1/careers?query=nurse&job_zone=3,4&limit=5')).body;
      expect(searched.data).toHaveLength(5);

      await inCheckout({ 'careers.ts': typescript! }, async (folder) => {
        expect(typescriptDiagnostics([join(folder, 'careers.ts')])).toEqual([]);
        for (const run of [1, 2]) {
          // In the terminal of getting-started; then the reader runs the pasted TypeScript there (npx tsx).
          const output = await runBlocksIn(folder, [...reader, shell!, 'npx tsx careers.ts'], { NATURE_DATA_DIR: dir.path });
          const subject = /^subject (sub_\w+)$/m.exec(output)![1]!;
          const profile = (await api('GET', `/v1/nature/subjects/${subject}/profile`)).body;
          const matched = (await api('POST', '/v1/careers/matches', { profile_id: profile.id, limit: 5 })).body;
          expect(matched.data, `run ${run}`).toHaveLength(5);

          // The shell: the five careers found, then the five matches of the subject's profile.
          const printed = jqObjects(output).filter((value) => 'code' in value);
          expect(printed.slice(0, 5)).toEqual(
            searched.data.map((career: Record<string, any>) => ({ id: career.id, title: career.title, code: career.occupation.code })),
          );
          for (const career of printed.slice(0, 5)) expect(career.title).toMatch(/nurs/i);
          expect(printed.slice(5)).toEqual(
            matched.data.map((match: Record<string, any>) => ({
              code: match.occupation.code,
              title: match.occupation.title,
              fit: match.fit,
            })),
          );

          // The client: the first nurse of job zone 3 or 4, then each match's title and fit.
          const first = (await api('GET', '/v1/careers?query=nurse&job_zone=3,4')).body.data[0];
          const lines = [
            `${first.title} ${first.occupation.code}`,
            ...matched.data.map((match: Record<string, any>) => `${match.occupation.title} ${match.fit.toFixed(2)}`),
          ];
          expect(output.trimEnd().split('\n').slice(-6)).toEqual(lines);
        }
      });

      // A career, as the guide shows one (its values illustrate: the release's own are never committed here): the same
      // members and types as the API's answer for a career of that kind, found by that title, of that occupation.
      const example = JSON.parse(ofLang(blocks, 'json')[0]!) as Record<string, any>;
      const found = (await api('GET', `/v1/careers?query=${encodeURIComponent(example.title)}`)).body.data as Record<string, any>[];
      const like = found.find((career) => career.occupation.code === example.occupation.code && career.title_kind === example.title_kind);
      expect(like, `no ${example.title_kind} title "${example.title}" of ${example.occupation.code}`).toBeDefined();
      const career = (await api('GET', `/v1/careers/${like!.id}`)).body;
      expect(career.title).toContain(example.title);
      expect(shapeOf(career)).toEqual(shapeOf(example));
      expect(career).toMatchObject({
        object: example.object,
        occupation: { code: example.occupation.code, title: example.occupation.title, riasec: example.occupation.riasec },
        catalogue_version: example.catalogue_version,
      });
    }, 300_000);
  },
);
