import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { gettingStarted, root, runBlocks, shellBlocks } from '../support/docs-blocks.js';
import { freePort, serverPool } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

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
    const blocks = await gettingStarted(server);
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
