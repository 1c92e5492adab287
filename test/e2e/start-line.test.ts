import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../support/cli.js';
import { freePort, startServer } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

/** util-linux's script: runs a command with a pseudo-terminal for its output, as a person's terminal gives `npm start`. */
const SCRIPT = '/usr/bin/script';
const root = fileURLToPath(new URL('../..', import.meta.url));

const skipped = !existsSync(SCRIPT);
if (skipped) {
  console.error(
    `\n!!! START LINE TESTS ON A TERMINAL SKIPPED: ${SCRIPT} is not installed on this machine. Install it (apt-get install -y bsdutils)\n` +
      '!!! and run npm test again. The skipped tests are reported as skipped, never as passed.\n',
  );
}

const LINE = /Nature Profile API listening on .*\r?\n/;

/** `src/server/main.ts` on a terminal until it prints its start line; `stop` ends it (script stops the server it runs). */
async function startOnTerminal(dataDir: string) {
  const port = await freePort();
  const child = spawn(SCRIPT, ['-qfec', `${process.execPath} --import tsx src/server/main.ts`, '/dev/null'], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info', NATURE_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const line = await new Promise<string>((resolve, reject) => {
    const check = () => {
      const match = LINE.exec(output);
      if (match !== null) resolve(match[0].trim());
    };
    child.stdout.on('data', (chunk) => {
      output += chunk;
      check();
    });
    child.stderr.on('data', (chunk) => (output += chunk));
    void exited.then(() => reject(new Error(`the server exited:\n${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    line,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

describe.skipIf(skipped)('npm start on a terminal', () => {
  const data = tempDir();
  afterAll(() => data.cleanup());

  it('prints one line with the URL, the docs and the command for a first key; that command works, and then the hint goes', async () => {
    const first = await startOnTerminal(data.path);
    let key: string;
    try {
      const mint = `npx nature keys create --env test --type sk --scope nature:read --scope nature:write --name dev --data-dir ${data.path}`;
      expect(first.line).toBe(`Nature Profile API listening on ${first.url} — docs at ${first.url}/docs — no API key yet: ${mint}`);
      expect((await fetch(`${first.url}/docs`)).status).toBe(200);
      const minted = await runCliInProcess(mint.split(' ').slice(2), {});
      expect(minted.status, minted.stderr).toBe(0);
      key = minted.stdout.trim();
      const items = await fetch(`${first.url}/v1/nature/items`, { headers: { authorization: `Bearer ${key}` } });
      expect(items.status).toBe(200);
    } finally {
      await first.stop();
    }
    const again = await startOnTerminal(data.path);
    try {
      expect(again.line).toBe(`Nature Profile API listening on ${again.url} — docs at ${again.url}/docs`);
    } finally {
      await again.stop();
    }
  });
});

describe('npm start elsewhere (a pipe, a log collector)', () => {
  const data = tempDir();
  afterAll(() => data.cleanup());

  it('prints JSON log lines only', async () => {
    const server = await startServer({ NATURE_DATA_DIR: data.path });
    try {
      expect((await fetch(`${server.url}/docs`)).status).toBe(200);
    } finally {
      server.process.kill('SIGTERM');
      await server.exited;
    }
    const lines = server.output().split('\n').filter(Boolean);
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
  });
});
