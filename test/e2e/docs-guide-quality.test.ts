import { describe, expect, it } from 'vitest';
import { items } from '../../src/scoring/item-bank.js';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { gettingStarted, readerMachine, runBlocks, servedGuide } from '../support/docs-blocks.js';
import { shapeOf } from '../support/json-examples.js';
import { callServer } from '../support/processes.js';

describe('/docs/quality, every block run as a reader pastes it, twice', () => {
  const machine = readerMachine();

  it('sends timed answers to a new assessment, and shows the quality of real straight-lined and attentive profiles', async () => {
    const server = await machine.start();
    const blocks = await servedGuide(server, 'quality');
    expect(blocks.map((block) => block.lang)).toEqual(['sh', 'json', 'json']);
    const [timing, flaggedExample, attentiveExample] = [blocks[0]!.text, JSON.parse(blocks[1]!.text), JSON.parse(blocks[2]!.text)];
    const key = JSON.parse((await runCliInProcess(keyCreateArgs(), machine.dataEnv())).stdout).key as string;
    const call = (method: string, path: string, body?: unknown) => callServer(server, key, method, path, body);

    /** The profile of a new subject who gave these 76 answers. */
    async function profileOf(responses: { item_id: string; value: number; response_time_ms?: number }[]) {
      const subject = await call('POST', '/v1/nature/subjects', {
        external_subject_id: `quality-${crypto.randomUUID()}`,
        consent: { text_version: 'consent-v3', granted_at: new Date().toISOString(), ui_hash: `sha256:${'ab'.repeat(32)}` },
      });
      expect(subject.status, JSON.stringify(subject.body)).toBe(201);
      const assessment = await call('POST', `/v1/nature/subjects/${subject.body.id}/assessments`, { language: 'en' });
      const answered = await call('PATCH', `/v1/nature/subjects/${subject.body.id}/assessments/${assessment.body.id}`, { responses });
      expect(answered.body.status, JSON.stringify(answered.body)).toBe('scoring');
      return (await call('GET', `/v1/nature/subjects/${subject.body.id}/profile`)).body;
    }

    const terminal = [...(await gettingStarted(server)), timing];
    for (const run of [1, 2]) {
      // The second time, getting started goes on with the assessment the first left open and completes it; the
      // block then starts a new one.
      const output = await runBlocks(terminal, machine.dataEnv());
      expect(output).toMatch(/^assessment asm_\w{26}$/m);
      expect(output).toContain('{"status":"scoring","responses_received":76}');
      expect(output.trimEnd().split('\n').at(-1), `run ${run}:\n${output}`).toBe('{"status":"in_progress","responses_received":4}');

      // "A person who answered 3 to all 76 items, without timing": the excerpt is the profile's, to the value.
      const straight = await profileOf(items.map((item) => ({ item_id: item.id, value: 3 })));
      expect(straight.id).toMatch(/^prf_[0-9A-HJKMNP-TV-Z]{26}$/);
      expect(flaggedExample.id).toMatch(/^prf_[0-9A-HJKMNP-TV-Z]{26}$/);
      const excerpt = Object.fromEntries(Object.keys(flaggedExample).map((name) => [name, straight[name]]));
      expect(excerpt).toEqual({ ...flaggedExample, id: straight.id });

      // An attentive person, timed: varied answers that agree within each construct, three of 76 under a second.
      const attentive = await profileOf(
        items.map((item, index) => ({
          item_id: item.id,
          value: ((index % 19) % 5) + 1,
          response_time_ms: index < 3 ? 800 : 3000 + ((index * 37) % 4000),
        })),
      );
      expect(shapeOf({ quality: attentive.quality })).toEqual(shapeOf(attentiveExample));
      expect(attentive.quality).toMatchObject({ flagged: false, reasons: [] });
      // "indicators has all five, always, in the order above", in both examples as in the profiles.
      const order = Object.keys(flaggedExample.quality.indicators);
      expect(Object.keys(attentiveExample.quality.indicators)).toEqual(order);
      expect(Object.keys(straight.quality.indicators)).toEqual(order);
      expect(Object.keys(attentive.quality.indicators)).toEqual(order);
    }
  }, 240_000);
});
