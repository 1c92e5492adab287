import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createNatureClient, isNatureApiError, type NatureEvent } from '../../packages/client/src/index.js';
import { client } from '../support/api-client.js';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { injectFetch } from '../support/inject-fetch.js';
import { envOutsideNpm, serverPool } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';
import { openTestApp, type TestApp, validSubject } from '../support/test-app.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const clientDir = join(root, 'packages/client');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const lockedVersion = (name: string): string =>
  (JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> }).packages[
    `node_modules/${name}`
  ]!.version;

/** What an integrator writes: the resources, typed errors, a list iterated, a time-out of its own. */
const script = `
import { createServer } from 'node:http';
import { setTimeout as pause } from 'node:timers/promises';
import { createNatureClient, isNatureApiError, NatureTimeoutError, type NatureClient } from '@nature-profile/client';

const nature: NatureClient = createNatureClient({ apiKey: process.env.NATURE_API_KEY!, baseUrl: process.env.NATURE_BASE_URL!, timeoutMs: 10_000 });
const consent = { text_version: 'consent-v3', granted_at: new Date().toISOString(), ui_hash: 'sha256:' + 'ab'.repeat(32) };

const subject = await nature.subjects.create({ external_subject_id: 'emp-0042', consent });
const again = await nature.subjects.create({ external_subject_id: 'emp-0042', consent }).catch((error: unknown) => error);
if (!isNatureApiError(again, 'subject_exists')) throw again;
const existing: string = again.subject_id;

const items = await nature.items.list();
const assessment = await nature.assessments.start(subject.id, { language: 'en' });
let status: string = assessment.status;
for (let batch = 0; batch < 4; batch += 1) {
  const responses = items.data.slice(batch * 19, batch * 19 + 19).map((item) => ({ item_id: item.id, value: 4 }));
  status = (await nature.assessments.submit(subject.id, assessment.id, { responses }, { timeoutMs: 5_000 })).status;
}
let read = await nature.assessments.get(subject.id, assessment.id);
while (read.status === 'scoring') {
  await pause(50);
  read = await nature.assessments.get(subject.id, assessment.id);
}
const profile = await nature.profiles.latest(subject.id);
const sameProfile = await nature.profiles.get(profile.id);

const firstPage = await nature.subjects.list({ limit: 1 });
const everyId: string[] = [];
for await (const listed of nature.subjects.list({ limit: 1 })) everyId.push(listed.id);
const history: string[] = [];
for await (const entry of nature.subjects.audit(subject.id, { limit: 3 })) history.push(entry.type);
const events: string[] = [];
for await (const event of nature.events.list()) events.push(event.type);
let usage = await nature.usage.get({ granularity: 'month' });
while (usage.total_completed_assessments === 0) {
  await pause(50);
  usage = await nature.usage.get({ granularity: 'month' });
}
const endpoint = await nature.webhookEndpoints.create({ url: 'https://example.com/hooks' });
const erased = await nature.subjects.erase(subject.id);

// A server that never answers: the call gives up after its time-out instead of hanging.
const silent = createServer(() => {}).listen(0, '127.0.0.1');
await new Promise((resolve) => silent.once('listening', resolve));
const { port } = silent.address() as { port: number };
const stalled = createNatureClient({ apiKey: 'test_sk_x', baseUrl: 'http://127.0.0.1:' + port, retries: { maxRetries: 0 } });
const timeout: unknown = await stalled.items.list({}, { timeoutMs: 200 }).catch((error: unknown) => error);
silent.closeAllConnections();
silent.close();

/** Never called: calls the compiler must refuse, as the types come from the API's document. */
export function misuses() {
  // @ts-expect-error: a subject has no such member.
  void nature.subjects.create({ external_subject_id: 'x', consent, nickname: 'x' });
  // @ts-expect-error: an assessment is read by its subject and its own id.
  void nature.assessments.get(subject.id);
  // @ts-expect-error: an answer is a number from 1 to 5, not a word.
  void nature.assessments.submit(subject.id, assessment.id, { responses: [{ item_id: 'x', value: 'often' }] });
}

console.log(JSON.stringify({
  subject: subject.object, existing: existing === subject.id, status, finished: read.status,
  profile: profile.id === sameProfile.id && profile.object, natures: Object.keys(profile.natures).length,
  firstPage: firstPage.data.length, everyId, history, events,
  usage: usage.total_completed_assessments, secret: endpoint.secret.startsWith('whsec_'), erased: erased.deleted,
  timeout: timeout instanceof NatureTimeoutError,
}));
`;

describe('@nature-profile/client as an integrator installs it from its tarball', () => {
  const dir = tempDir('nature-client-package-');
  const project = tempDir('nature-integrator-');
  let tarball: string;
  let env: Record<string, string>;
  const servers = serverPool(() => env);

  beforeAll(() => {
    // prepack builds it, as `npm publish` would.
    execFileSync(npm, ['pack', '--pack-destination', dir.path], { cwd: clientDir, env: envOutsideNpm, stdio: 'pipe' });
    const [name] = readdirSync(dir.path).filter((file) => file.endsWith('.tgz'));
    tarball = join(dir.path, name!);
  }, 120_000);
  afterAll(async () => {
    await servers.killAll();
    dir.cleanup();
    project.cleanup();
  });

  it('contains the built ESM, its types, the licence and the readme, and no source map pointing at files it lacks', () => {
    const files = execFileSync('tar', ['-tzf', tarball], { encoding: 'utf8' }).trim().split('\n');
    expect(files).toEqual(
      expect.arrayContaining([
        'package/package.json',
        'package/LICENSE',
        'package/README.md',
        'package/dist/index.js',
        'package/dist/index.d.ts',
        'package/dist/resources.js',
        'package/dist/generated/openapi.d.ts',
      ]),
    );
    expect(files.filter((file) => !/^package\/(dist\/.+\.(js|d\.ts)|package\.json|LICENSE|README\.md)$/.test(file))).toEqual([]);
    const manifest = JSON.parse(execFileSync('tar', ['-xzOf', tarball, 'package/package.json'], { encoding: 'utf8' }));
    expect(manifest).toMatchObject({ license: 'MIT', repository: { directory: 'packages/client' } });
    expect(manifest.private).toBeUndefined();
    const index = execFileSync('tar', ['-xzOf', tarball, 'package/dist/index.js'], { encoding: 'utf8' });
    expect(index).not.toContain('sourceMappingURL');
  });

  it('installs into a project outside the workspace, type-checks a script against it, and the script runs against the server', async () => {
    writeFileSync(join(project.path, 'package.json'), JSON.stringify({ name: 'integrator', private: true, type: 'module' }));
    writeFileSync(
      join(project.path, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          types: ['node'],
          outDir: 'out',
        },
        include: ['script.ts'],
      }),
    );
    writeFileSync(join(project.path, 'script.ts'), script);
    const install = [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      tarball,
      `typescript@${lockedVersion('typescript')}`,
      `@types/node@${lockedVersion('@types/node')}`,
    ];
    execFileSync(npm, install, { cwd: project.path, env: envOutsideNpm, stdio: 'pipe' });
    // Type-checked and compiled by the project's own TypeScript, strict; a failure shows the compiler's messages.
    try {
      execFileSync(process.execPath, [join(project.path, 'node_modules/typescript/bin/tsc'), '-p', '.'], {
        cwd: project.path,
        stdio: 'pipe',
      });
    } catch (error) {
      throw new Error(`tsc refused the script:\n${(error as { stdout?: Buffer }).stdout?.toString() ?? ''}`);
    }

    const data = tempDir();
    env = { NATURE_DATA_DIR: data.path };
    try {
      const server = await servers.start();
      const apiKey = JSON.parse((await runCliInProcess(keyCreateArgs('test', 'integrator'), env)).stdout).key as string;
      const printed = execFileSync(process.execPath, ['out/script.js'], {
        cwd: project.path,
        env: { ...envOutsideNpm, NATURE_API_KEY: apiKey, NATURE_BASE_URL: server.url },
        encoding: 'utf8',
      });
      const result = JSON.parse(printed);
      expect(result).toEqual({
        subject: 'subject',
        existing: true,
        status: 'scoring',
        finished: 'completed',
        profile: 'profile',
        natures: 9,
        firstPage: 1,
        everyId: [expect.stringMatching(/^sub_/)],
        history: [
          'subject.created',
          'consent.recorded',
          'assessment.started',
          ...Array(4).fill('responses.submitted'),
          'assessment.scored',
        ],
        events: expect.arrayContaining(['nature.assessment.completed']),
        usage: 1,
        secret: true,
        erased: true,
        timeout: true,
      });
    } finally {
      await servers.killAll();
      data.cleanup();
    }
  }, 180_000);
});

describe('nature.situational, against the in-process app', () => {
  const situation =
    'Leading a small team through a hard deadline: planning the work, keeping everyone calm and explaining the changes to the client.';
  let t: TestApp;
  let key: string;
  beforeAll(async () => {
    t = await openTestApp();
    key = (await t.mint('test', 'sk', ['nature:read', 'nature:write', 'situational:read', 'situational:write'])).raw;
  });
  afterAll(() => t.close());

  const typedClient = () => {
    const inProcess = injectFetch(t.app);
    return createNatureClient({ apiKey: key, baseUrl: 'http://127.0.0.1', fetch: (request: Request) => inProcess(request) });
  };

  it('creates (Idempotency-Key kept), gets until completed, lists a subject’s page by page; the event is typed by its type', async () => {
    const nature = typedClient();
    const api = client(t, key);
    const { subjectId } = await api.completeAssessment();
    const profile = await api.profileOf(subjectId);

    const body = { subject_id: subjectId, situation_context: situation };
    const accepted = await nature.situational.create(body, { idempotencyKey: 'situation-1' });
    expect(accepted).toMatchObject({ object: 'situational_assessment', subject_id: subjectId, profile_id: profile.id, language: 'en' });
    expect(accepted.id).toMatch(/^sit_/);
    expect(['pending', 'completed']).toContain(accepted.status);
    expect((await nature.situational.create(body, { idempotencyKey: 'situation-1' })).id).toBe(accepted.id);

    const done = await eventually(async () => {
      const read = await nature.situational.get(accepted.id);
      return read.status === 'pending' ? undefined : read;
    });
    expect(done).toMatchObject({ id: accepted.id, status: 'completed', method_version: 'situational-v1' });
    expect(done.alignment!.overall).toBeGreaterThanOrEqual(0);
    expect(done.alignment!.overall).toBeLessThanOrEqual(1);
    expect(done.situation!.intelligences.interpersonal).toBeGreaterThan(0);
    expect(done.narrative).toEqual(expect.any(String));

    const second = await nature.situational.create(body);
    const first = await nature.situational.list({ subject_id: subjectId, limit: 1 });
    expect(first).toMatchObject({ object: 'list', has_more: true });
    expect(first.data.map((listed) => listed.id)).toEqual([second.id]);
    const every: string[] = [];
    for await (const listed of nature.situational.list({ subject_id: subjectId, limit: 1 })) every.push(listed.id);
    expect(every).toEqual([second.id, accepted.id]);

    const announced = await eventually(async () => {
      for await (const event of nature.events.list({ limit: 100 })) {
        if (event.type === 'situational.assessment.completed' && event.data.id === accepted.id) return event;
      }
      return undefined;
    });
    const data: Extract<NatureEvent, { type: 'situational.assessment.completed' }>['data'] = announced.data;
    expect(data).toEqual({ id: accepted.id, subject_id: subjectId, status: 'completed' });
    expect(await nature.events.get(announced.id)).toEqual(announced);
  });

  it('rejects a subject without a completed assessment with a NatureApiError narrowed to profile_required (409)', async () => {
    const nature = typedClient();
    const subject = await nature.subjects.create(validSubject());
    const refused = await nature.situational
      .create({ subject_id: subject.id, situation_context: situation })
      .catch((error: unknown) => error);
    if (!isNatureApiError(refused, 'profile_required')) throw refused;
    expect(refused).toMatchObject({ status: 409, code: 'profile_required', request_id: expect.stringMatching(/^req_/) });
    expect((await nature.situational.list({ subject_id: subject.id })).data).toEqual([]);
  });
});
