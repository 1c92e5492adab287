import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterEach, beforeEach } from 'vitest';
import { decodeHtml } from './html-text.js';
import { envOutsideNpm, type ServerProcess, serverPool } from './processes.js';
import { tempDir } from './temp-dir.js';

/** The checkout: the docs' blocks run from it, as a reader's do from their clone. */
export const root = fileURLToPath(new URL('../..', import.meta.url));

/** One fenced block of a page, as a reader copies it. */
export interface CodeBlock {
  lang: string;
  text: string;
}

/** Every fenced block of a served page, in order, as a reader copies it from the page (the origin filled in). */
export function servedBlocks(html: string): CodeBlock[] {
  return [...html.matchAll(/<pre[^>]*><code class="language-([\w-]+)">([\s\S]*?)<\/code><\/pre>/g)].map((match) => ({
    lang: match[1]!,
    text: decodeHtml(match[2]!),
  }));
}

/** The served guide at /docs/{slug} of `server`, as its blocks. */
export async function servedGuide(server: { url: string }, slug: string): Promise<CodeBlock[]> {
  const page = await fetch(`${server.url}/docs/${slug}`);
  if (page.status !== 200) throw new Error(`/docs/${slug} answered ${page.status}`);
  return servedBlocks(await page.text());
}

/** The blocks of one language, in order. */
export const ofLang = (blocks: CodeBlock[], lang: string) => blocks.filter((block) => block.lang === lang).map((block) => block.text);

/** The `sh` blocks of a Markdown section (from its `## ` heading to the next), in order. */
export function shellBlocks(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no section "## ${heading}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

/**
 * Runs `blocks` in one bash, in order, as pasted into one terminal (stopping at the first failing command),
 * from `cwd` (the checkout unless given), and resolves with what it printed once every one of `done` matches it;
 * background jobs are killed then. With no `done`, it resolves when the shell ends well.
 */
export function runBlocks(blocks: string[], env: Record<string, string>, ...done: RegExp[]): Promise<string> {
  return runBlocksIn(root, blocks, env, ...done);
}

export function runBlocksIn(cwd: string, blocks: string[], env: Record<string, string>, ...done: RegExp[]): Promise<string> {
  const script = ['set -eo pipefail', ...blocks, 'wait'].join('\n');
  const shell = spawn('bash', ['-c', script], {
    cwd,
    env: { ...envOutsideNpm, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const finished = () => done.length > 0 && done.every((pattern) => pattern.test(output));
    const check = () => {
      if (!finished()) return;
      process.kill(-shell.pid!, 'SIGKILL');
      resolve(output);
    };
    shell.stdout.on('data', (chunk) => {
      output += chunk;
      check();
    });
    shell.stderr.on('data', (chunk) => (output += chunk));
    shell.once('exit', (code) => {
      if (finished()) return;
      if (done.length === 0 && code === 0) resolve(output);
      else reject(new Error(`the blocks stopped (exit ${code})${done.length ? ` before printing ${done.join(' and ')}` : ''}:\n${output}`));
    });
  });
}

/**
 * The reader's terminal after /docs/getting-started, which every other guide assumes: `NATURE_API_KEY`, `BASE`,
 * `AUTH`, `SUBJECT`, `ASSESSMENT` (completed) and `WEBHOOK_SECRET` set. Prepend it to a guide's `sh` blocks.
 */
export async function gettingStarted(server: { url: string }): Promise<string[]> {
  return ofLang(await servedGuide(server, 'getting-started'), 'sh');
}

/** What strict TypeScript says of each file, as a project of the reader's would (ESM, Node's types, the packages installed here). */
export function typescriptDiagnostics(files: string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: ['node'],
    skipLibCheck: true,
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => `${diagnostic.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
}

/**
 * A folder inside the checkout (so its packages — standardwebhooks, the client's workspace — resolve as they would
 * once installed) holding `files` (name → text); removed after `use`.
 */
export async function inCheckout<T>(files: Record<string, string>, use: (dir: string) => Promise<T> | T): Promise<T> {
  const dir = mkdtempSync(join(root, '.docs-run-'));
  try {
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return await use(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The Markdown source of a guide (its `{{…}}` placeholders left in). */
export const guideSource = (slug: string) => readFileSync(join(root, 'docs', `${slug}.md`), 'utf8');

/**
 * Runs `prelude` (what the reader did before, e.g. getting started), then `blocks` twice in a row, in one terminal
 * in one folder inside the checkout (where a reader's files such as `profile.svg` land), as a reader who pastes
 * them again; `look` sees each run's output and the folder. Resolves with both outputs.
 */
export async function runTwice(
  prelude: string[],
  blocks: string[],
  env: Record<string, string>,
  look: (output: string, dir: string) => void | Promise<void> = () => {},
): Promise<[string, string]> {
  const marker = '::pasted again::';
  return inCheckout({}, async (dir) => {
    const output = await runBlocksIn(dir, [...prelude, `echo '${marker}'`, ...blocks, `echo '${marker}'`, ...blocks], env);
    const runs = output.split(`${marker}\n`).slice(1) as [string, string];
    for (const run of runs) await look(run, dir);
    return runs;
  });
}

/**
 * A reader's machine for each test: a data folder shared by the server and the CLI the blocks call, and a real
 * server on it (started by `start`, killed after the test).
 */
export function readerMachine() {
  let dir: ReturnType<typeof tempDir>;
  const env = (): Record<string, string> => ({ NATURE_DATA_DIR: dir.path });
  const servers = serverPool(env);
  beforeEach(() => {
    dir = tempDir();
  });
  afterEach(async () => {
    await servers.killAll();
    dir.cleanup();
  });
  return {
    start: (): Promise<ServerProcess> => servers.start(),
    /** The data folder, for the CLI the test itself runs. */
    dataEnv: env,
    /** What the blocks' shell needs: the data folder, and the server's address for the CLI. */
    env: (server: ServerProcess): Record<string, string> => ({ ...env(), NATURE_BASE_URL: server.url }),
  };
}

/** The member names of the example JSON a block shows in its comments (`# {"object":"usage",…}`), in order. */
export function documentedKeys(block: string): string[] {
  const comments = block
    .split('\n')
    .filter((line) => line.startsWith('# {') || line.startsWith('#  '))
    .join('');
  return [...new Set([...comments.matchAll(/"(\w+)":/g)].map((match) => match[1]!))];
}

/** The JSON objects a run printed, in order: one per line (`jq -c`) or pretty-printed (`jq .`). */
export const printedJson = (output: string): Record<string, unknown>[] =>
  [...output.matchAll(/^\{(?:.*\}$|\n[\s\S]*?^\}$)/gm)].map((match) => JSON.parse(match[0]));
