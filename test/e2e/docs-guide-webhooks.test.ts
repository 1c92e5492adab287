import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { gettingStarted, inCheckout, ofLang, runBlocks, runBlocksIn, servedGuide, typescriptDiagnostics } from '../support/docs-blocks.js';
import { answering, type GuideProgram, shapeOf, startGuideProgram } from '../support/guide-programs.js';
import { callServer, freePort, serverPool } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

/** The URL the guide registers, `https://example.com/…`: the reader's own receiver, which they put in its place. */
const placeholderUrl = 'https://example.com/hooks/nature';

describe('/docs/webhooks, every block run as the reader pastes it, against a real server, twice', () => {
  let dir: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  const servers = serverPool(() => env);
  const programs: GuideProgram[] = [];
  beforeEach(() => {
    dir = tempDir();
    env = { NATURE_DATA_DIR: dir.path };
  });
  afterEach(async () => {
    for (const program of programs.splice(0)) await program.stop();
    await servers.killAll();
    dir.cleanup();
  });

  it('registers an endpoint at the receiver, which verifies the real delivery; listen and trigger forward it; the event is as shown', async () => {
    const server = await servers.start();
    const blocks = await servedGuide(server, 'webhooks');
    expect(blocks.map((block) => block.lang)).toEqual(['sh', 'json', 'ts', 'sh']);
    const [register, listenAndTrigger] = ofLang(blocks, 'sh');
    const [receiver] = ofLang(blocks, 'ts');
    const example = JSON.parse(ofLang(blocks, 'json')[0]!) as Record<string, unknown>;
    const reader = await gettingStarted(server);
    // The test's own key, to read what the server recorded (the deliveries), as the dashboard would show it.
    const key = JSON.parse((await runCliInProcess(keyCreateArgs('test', 'docs test'), env)).stdout).key as string;
    const terminal = { NATURE_DATA_DIR: dir.path, XDG_STATE_HOME: join(dir.path, 'state') };

    await inCheckout({ 'receiver.ts': receiver! }, async (folder) => {
      // The receiver is strict TypeScript, as the guide says.
      expect(typescriptDiagnostics([join(folder, 'receiver.ts')])).toEqual([]);

      for (const run of [1, 2]) {
        // 1. Register an endpoint at the reader's receiver (here on a port of its own), in the terminal of getting-started.
        const endpointPort = await freePort();
        const endpointUrl = `http://127.0.0.1:${endpointPort}/webhooks`;
        const registered = await runBlocks([...reader, register!.replace(placeholderUrl, endpointUrl)], terminal);
        const endpoint = JSON.parse(registered.trim().split('\n').at(-1)!) as Record<string, string>;
        expect(endpoint, `run ${run}`).toMatchObject({ object: 'webhook_endpoint', url: endpointUrl, status: 'enabled' });
        expect(endpoint.secret).toMatch(/^whsec_/);

        // 2. The receiver, with that endpoint's secret (the answer showed it once), on that port.
        const endpointReceiver = startGuideProgram(folder, 'receiver.ts', {
          NATURE_WEBHOOK_SECRET: endpoint.secret!,
          PORT: String(endpointPort),
        });
        programs.push(endpointReceiver);
        await answering(endpointUrl);

        // 3. listen forwards to the same receiver, started by the block on PORT with listen's secret; trigger completes
        // an assessment: the receiver prints that completion (its event id, which trigger prints too).
        const forwardPort = await freePort();
        const forwarded = await runBlocksIn(
          folder,
          [...reader, listenAndTrigger!],
          { ...terminal, PORT: String(forwardPort) },
          /^(?=[\s\S]*^event_id\s+(evt_\w+)$)[\s\S]*^nature\.assessment\.completed \1 \{"profile_id":"prf_\w+"/m,
        );
        const eventId = /^event_id\s+(evt_\w+)$/m.exec(forwarded)![1]!;
        const profileId = /^profile_id\s+(prf_\w+)$/m.exec(forwarded)?.[1];
        expect(profileId, forwarded).toBeDefined();
        // The line the guide's receiver prints: the type, the id, the data (ids only).
        const line = new RegExp(`^nature\\.assessment\\.completed ${eventId} (\\{.*\\})$`, 'm');
        const data = JSON.parse(line.exec(forwarded)![1]!) as Record<string, string>;
        expect(data).toEqual({
          profile_id: profileId,
          assessment_id: expect.stringMatching(/^asm_/),
          subject_id: expect.stringMatching(/^sub_/),
        });

        // The server's own delivery of the same event reached the endpoint's receiver, which verified it.
        const printed = await endpointReceiver.printed(line);
        expect(JSON.parse(printed[1]!)).toEqual(data);
        await endpointReceiver.stop();

        // 4. The event shown in the guide is shaped as the body the server delivered (same members, same types).
        const deliveries = await callServer(server, key, 'GET', `/v1/nature/webhook_endpoints/${endpoint.id}/deliveries`);
        const delivery = (deliveries.body.data as Record<string, any>[]).find((attempt) => attempt.event_id === eventId);
        expect(delivery, JSON.stringify(deliveries.body)).toMatchObject({ outcome: 'succeeded', status_code: 204 });
        const delivered = JSON.parse(delivery!.request.body) as Record<string, unknown>;
        expect(delivered).toMatchObject({ id: eventId, type: 'nature.assessment.completed', data });
        expect(shapeOf(delivered)).toEqual(shapeOf(example));
        expect(delivered.type).toBe(example.type);
      }
    });
  }, 300_000);
});
