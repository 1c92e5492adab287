import { describe, expect, it } from 'vitest';
import { documentedKeys, gettingStarted, ofLang, printedJson, readerMachine, runTwice, servedGuide } from '../support/docs-blocks.js';

describe('/docs/privacy, pasted by a reader after getting started, twice in a row', () => {
  const machine = readerMachine();

  it("reads the subject's audit over HTTP and from the CLI, as lines and as JSON", async () => {
    const server = await machine.start();
    const blocks = await servedGuide(server, 'privacy');
    expect(blocks.map((block) => block.lang)).toEqual(['sh']);
    const [block] = ofLang(blocks, 'sh') as [string];
    await runTwice(await gettingStarted(server), ['echo "subject of the audit $SUBJECT"', block], machine.env(server), (output) => {
      const subject = /^subject of the audit (sub_\w+)$/m.exec(output)?.[1];
      const printed = printedJson(output) as Record<string, any>[];
      const http = printed.find((json) => json.object === 'list');
      const cli = printed.find((json) => 'subject_id' in json);
      expect(http?.object).toBe('list');
      expect(http?.data[0]).toMatchObject({ object: 'audit_entry', type: 'subject.created', personal_data: 'present' });
      for (const key of documentedKeys(block)) expect(JSON.stringify(http)).toContain(`"${key}":`);
      // The CLI's lines, then its JSON: the same history, whole.
      expect(output).toMatch(/^\S+\s+subject\.created\b/m);
      expect(cli?.subject_id).toBe(subject);
      expect(cli?.data.map((entry: { type: string }) => entry.type)).toEqual(
        expect.arrayContaining(['subject.created', 'assessment.scored']),
      );
    });
  }, 180_000);
});
