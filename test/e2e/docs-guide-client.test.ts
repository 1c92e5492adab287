import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../support/cli.js';
import { ofLang, root, runBlocks, servedGuide, typescriptDiagnostics } from '../support/docs-blocks.js';
import { answering, type GuideProgram, startGuideProgram } from '../support/guide-programs.js';
import { callServer, envOutsideNpm, freePort, serverPool } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

/** The folder the guide names `/path/to/your-project`: the reader's own project, which they put in its place. */
const placeholderProject = '/path/to/your-project';

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const lockedVersion = (name: string): string =>
  (JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> }).packages[
    `node_modules/${name}`
  ]!.version;

/** The test's npm: from its cache where it can (the registry otherwise), without audit or funding notices. */
const npmSettings = { npm_config_prefer_offline: 'true', npm_config_audit: 'false', npm_config_fund: 'false' };

describe('/docs/client, every block run as the reader pastes it, against a real server, twice', () => {
  let dir: ReturnType<typeof tempDir>;
  let project: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  const servers = serverPool(() => env);
  const programs: GuideProgram[] = [];
  beforeEach(() => {
    dir = tempDir();
    project = tempDir('my-project-');
    env = { NATURE_DATA_DIR: dir.path };
  });
  afterEach(async () => {
    for (const program of programs.splice(0)) await program.stop();
    await servers.killAll();
    dir.cleanup();
    project.cleanup();
  });

  it('installs the packed client in a project, whose example completes an assessment, lists, reads a situation; its receiver hears both', async () => {
    const server = await servers.start();
    const blocks = await servedGuide(server, 'client');
    expect(blocks.map((block) => block.lang)).toEqual(['sh', 'ts', 'ts', 'ts', 'ts']);
    const [install] = ofLang(blocks, 'sh');
    const [example, lists, situational, receiver] = ofLang(blocks, 'ts');

    // The reader's key, with the scopes the guide names (the situational ones beside nature's).
    const scopes = ['nature:read', 'nature:write', 'situational:read', 'situational:write'].flatMap((scope) => ['--scope', scope]);
    const minted = await runCliInProcess(
      ['keys', 'create', '--env', 'test', '--type', 'sk', ...scopes, '--name', 'backend', '--json'],
      env,
    );
    const key = JSON.parse(minted.stdout).key as string;
    const api = (method: string, path: string, body?: unknown) => callServer(server, key, method, path, body);

    // The reader's project: ESM, with Express for the receiver, as the guide says to install it (and Node's types, as
    // a TypeScript project for Node has them: the checkout's version, so the compiler sees one copy).
    writeFileSync(join(project.path, 'package.json'), JSON.stringify({ name: 'my-project', private: true, type: 'module' }));
    execFileSync(npm, ['install', 'express', '@types/express', `@types/node@${lockedVersion('@types/node')}`], {
      cwd: project.path,
      env: { ...envOutsideNpm, ...npmSettings },
      stdio: 'pipe',
    });
    // The guide's later blocks continue its first example: one module, as the reader's file grows. The receiver stands alone.
    writeFileSync(join(project.path, 'example.ts'), [example, lists, situational].join('\n'));
    writeFileSync(join(project.path, 'receiver.ts'), receiver!);

    // An endpoint at the receiver, for both events it handles, made the way the guide's resources table says.
    const receiverPort = await freePort();
    const receiverUrl = `http://127.0.0.1:${receiverPort}/webhooks`;
    const endpoint = (
      await api('POST', '/v1/nature/webhook_endpoints', {
        url: receiverUrl,
        enabled_events: ['nature.assessment.completed', 'situational.assessment.completed'],
      })
    ).body;
    expect(endpoint.secret).toMatch(/^whsec_/);

    const subjectIds: string[] = [];
    for (const run of [1, 2]) {
      // 1. Pack in the checkout, install in the project.
      const installed = await runBlocks([install!.replaceAll(placeholderProject, project.path)], { ...npmSettings });
      expect(installed, `run ${run}`).toMatch(/^nature-profile-client-0\.1\.0\.tgz$/m);
      expect(installed).toMatch(/^(added \d+ packages?|changed \d+ packages?|up to date) in /m);
      const manifest = JSON.parse(readFileSync(join(project.path, 'package.json'), 'utf8'));
      expect(manifest.dependencies['@nature-profile/client']).toBe('file:nature-profile-client-0.1.0.tgz');
      const installedClient = JSON.parse(readFileSync(join(project.path, 'node_modules/@nature-profile/client/package.json'), 'utf8'));
      expect(installedClient).toMatchObject({ name: '@nature-profile/client', version: '0.1.0' });

      // 2. Strict TypeScript against the installed package.
      expect(typescriptDiagnostics([join(project.path, 'example.ts'), join(project.path, 'receiver.ts')])).toEqual([]);

      // 3. The receiver, then the example.
      const listening = startGuideProgram(project.path, 'receiver.ts', {
        NATURE_API_KEY: key,
        NATURE_WEBHOOK_SECRET: endpoint.secret,
        PORT: String(receiverPort),
      });
      programs.push(listening);
      await answering(receiverUrl);
      const output = await startGuideProgram(project.path, 'example.ts', { NATURE_API_KEY: key }).finished;

      // What the example printed is what the API holds: the profile of emp-0042's newest assessment, every subject's
      // id, and the situation read for it (then every situation of the subject: one more each run).
      const subjects = (await api('GET', '/v1/nature/subjects?external_subject_id=emp-0042')).body.data as Record<string, any>[];
      expect(subjects).toHaveLength(1);
      const subject = subjects[0]!.id as string;
      subjectIds.push(subject);
      const profile = (await api('GET', `/v1/nature/subjects/${subject}/profile`)).body;
      expect(output).toMatch(new RegExp(`^${profile.id} \\{\\n\\s+administrative: 0\\.\\d+,`, 'm'));
      expect(output).toMatch(new RegExp(`^${subject}$`, 'm'));
      const situations = (await api('GET', `/v1/situational/assessments?subject_id=${subject}`)).body.data as Record<string, any>[];
      expect(situations).toHaveLength(run);
      const read = situations[0]!;
      expect(read.status).toBe('completed');
      expect(output).toContain(`${read.alignment.overall} ${read.narrative}`);
      for (const one of situations) expect(output).toMatch(new RegExp(`^${one.id} completed$`, 'm'));

      // The receiver verified both events and read what they name.
      await listening.printed(new RegExp(`^nature\\.assessment\\.completed ${profile.id}$`, 'm'));
      await listening.printed(new RegExp(`^situational\\.assessment\\.completed ${read.id} completed$`, 'm'));
      await listening.stop();
    }
    // Run again, the example went on with the subject it had made.
    expect(subjectIds[1]).toBe(subjectIds[0]);
  }, 300_000);

  it('gives, in the client guide and the client README, a consent ui_hash the API accepts (sha256: and 64 hex digits)', () => {
    for (const file of ['docs/client.md', 'packages/client/README.md']) {
      const hashes = [...readFileSync(join(root, file), 'utf8').matchAll(/ui_hash: '([^']*)'/g)].map((match) => match[1]);
      expect(hashes.length, file).toBeGreaterThan(0);
      for (const hash of hashes) expect(hash, file).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
  });

  it("gives, in the client package's README, the guide's TypeScript examples (the ones run above), for the default address", () => {
    const typescript = (file: string) =>
      [...readFileSync(join(root, file), 'utf8').matchAll(/```ts\n([\s\S]*?)```/g)].map((match) =>
        match[1]!.replaceAll('{{base_url}}', 'http://127.0.0.1:8080'),
      );
    const guide = typescript('docs/client.md');
    expect(typescript('packages/client/README.md')).toEqual(guide.slice(0, 3));
  });
});
