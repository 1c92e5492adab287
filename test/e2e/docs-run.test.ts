import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { decodeHtml } from '../support/html-text.js';
import { envOutsideNpm, freePort, serverPool } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The `sh` blocks of a Markdown section (from its `## ` heading to the next), in order. */
function shellBlocks(markdown: string, heading: string): string[] {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`no section "## ${heading}"`);
  const end = markdown.indexOf('\n## ', start + 1);
  const section = markdown.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

/** The `sh` blocks of a served guide, as a reader copies them from the page. */
function servedShellBlocks(html: string): string[] {
  return [...html.matchAll(/<pre[^>]*><code class="language-sh">([\s\S]*?)<\/code><\/pre>/g)].map((match) => decodeHtml(match[1]!));
}

/**
 * Runs `blocks` in one bash, in order, as pasted into one terminal (stopping at the first failing command),
 * and resolves with what it printed once every one of `done` matches it; background jobs are killed then.
 */
function runBlocks(blocks: string[], env: Record<string, string>, ...done: RegExp[]): Promise<string> {
  const script = ['set -eo pipefail', ...blocks, 'wait'].join('\n');
  const shell = spawn('bash', ['-c', script], {
    cwd: root,
    env: { ...envOutsideNpm, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  return new Promise((resolve, reject) => {
    const finished = () => done.every((pattern) => pattern.test(output));
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
      if (!finished()) reject(new Error(`the blocks stopped (exit ${code}) before printing ${done.join(' and ')}:\n${output}`));
    });
  });
}

describe('the docs run as written, against a real server', () => {
  let dir: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  const servers = serverPool(() => env);
  beforeEach(() => {
    dir = tempDir();
    env = { NATURE_DATA_DIR: dir.path };
  });
  afterEach(async () => {
    await servers.killAll();
    dir.cleanup();
  });

  it("the README's quickstart and its local webhook loop: a profile, then a verified webhook of a triggered completion", async () => {
    const server = await servers.start();
    const receiverPort = await freePort();
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const blocks = [...shellBlocks(readme, 'Quickstart'), ...shellBlocks(readme, 'Webhooks on your machine')].map((block) =>
      // The README's addresses are the defaults; here the server and the receiver have ports of their own.
      block.replaceAll('http://127.0.0.1:8080', server.url).replaceAll('http://127.0.0.1:3000', `http://127.0.0.1:${receiverPort}`),
    );
    expect(blocks.length).toBeGreaterThanOrEqual(4);
    const output = await runBlocks(
      blocks,
      {
        NATURE_DATA_DIR: dir.path,
        NATURE_BASE_URL: server.url,
        PORT: String(receiverPort),
        XDG_STATE_HOME: join(dir.path, 'state'),
      },
      // The receiver may print the delivery before `trigger` has found the event and printed its id.
      /verified nature\.assessment\.completed (evt_\w+)/,
      /^event_id\s+evt_\w+$/m,
    );
    expect(output).toMatch(/^subject sub_\w{26}$/m);
    expect(output).toContain('{"status":"in_progress","responses_received":19}');
    expect(output).toContain('{"status":"scoring","responses_received":76}');
    expect(output).toMatch(/"scoring_version": "mn76-v\d"/);
    expect(output).toMatch(/"narratives": \[\n\s+"[A-Z]/);
    const triggered = /^event_id\s+(evt_\w+)$/m.exec(output)?.[1];
    expect(triggered).toBeDefined();
    expect(output).toContain(`verified nature.assessment.completed ${triggered}`);
  }, 180_000);

  it('/docs/getting-started as the server serves it, copied from the page and run twice in a row: a key, a subject, 76 answers, the profile, an endpoint', async () => {
    const server = await servers.start();
    const page = await fetch(`${server.url}/docs/getting-started`);
    expect(page.status).toBe(200);
    const blocks = servedShellBlocks(await page.text());
    expect(blocks.length).toBeGreaterThanOrEqual(5);
    // The page names this server (it follows the origin), so the blocks run unchanged.
    expect(blocks.join('\n')).toContain(`BASE=${server.url}\n`);
    // A reader runs them again (a second terminal, a retry): the subject exists by then, and the blocks go on with it.
    const runs = [
      await runBlocks(blocks, { NATURE_DATA_DIR: dir.path }, /^signing secret whsec_/m),
      await runBlocks(blocks, { NATURE_DATA_DIR: dir.path }, /^signing secret whsec_/m),
    ];
    for (const output of runs) {
      expect(output).toMatch(/^subject sub_\w{26}$/m);
      expect(output).toMatch(/^assessment asm_\w{26}$/m);
      expect(output).toContain('{"status":"scoring","responses_received":76}');
      expect(output).toMatch(/"natures": \{\n\s+"administrative": 0\.75,/);
    }
    const subjectOf = (output: string) => /^subject (sub_\w{26})$/m.exec(output)?.[1];
    expect(subjectOf(runs[1]!)).toBe(subjectOf(runs[0]!));
  }, 180_000);
});
