import { describe, expect, it } from 'vitest';
import { documentedKeys, gettingStarted, ofLang, printedJson, readerMachine, runTwice, servedGuide } from '../support/docs-blocks.js';

describe('/docs/usage, pasted by a reader after getting started, twice in a row', () => {
  const machine = readerMachine();

  it('reads the usage over HTTP and from the CLI: the sandbox counts the completions the reader made', async () => {
    const server = await machine.start();
    const blocks = await servedGuide(server, 'usage');
    expect(blocks.map((block) => block.lang)).toEqual(['sh', 'sh']);
    const [http, cli] = ofLang(blocks, 'sh') as [string, string];
    await runTwice(await gettingStarted(server), [http, cli], machine.env(server), (output) => {
      const answers = printedJson(output).filter((printed) => printed.object === 'usage') as [
        Record<string, any>,
        ...Record<string, any>[],
      ];
      // This month, November 2026 by month, and a timestamp range; then the CLI's --json.
      expect(answers).toHaveLength(4);
      for (const answer of answers) expect(answer).toMatchObject({ object: 'usage', livemode: false });
      // The keys the guide's example answer shows are the keys of a real answer.
      for (const key of documentedKeys(http)) expect(JSON.stringify(answers[0])).toContain(`"${key}":`);
      const thisMonth = new Date().toISOString().slice(0, 7);
      // Getting started completed one assessment in the sandbox.
      expect(answers[0].total_completed_assessments).toBe(1);
      expect(answers[0].data).toEqual(expect.arrayContaining([expect.objectContaining({ period: expect.stringContaining(thisMonth) })]));
      // The CLI's table for production: nothing there yet, so only its total.
      expect(output).toMatch(/^total {2}0 {2}0$/m);
      // The month's statement: as CSV (both environments, the sandbox's completion included), then production's as JSON.
      expect(output).toContain('month,environment,plan,kind,key_id,key_name,item,quantity,included,overage');
      expect(output).toMatch(new RegExp(`^${thisMonth},test,sandbox,total,,,completed_assessments,1,1,0$`, 'm'));
      const [statement] = printedJson(output).filter((printed) => printed.object === 'usage_statement') as Record<string, any>[];
      expect(statement).toMatchObject({ month: thisMonth, plan: { name: 'starter', monthly_quota: 1000, hard_cap: null }, lines: [] });
    });
  }, 180_000);
});
