import { describe, expect, it } from 'vitest';
import { banks } from '../../src/scoring/item-bank.js';
import { gettingStarted, ofLang, readerMachine, runTwice, servedGuide } from '../support/docs-blocks.js';

describe('/docs/french, pasted by a reader after getting started, twice in a row', () => {
  const machine = readerMachine();

  it('starts an assessment in French, shows a French item, takes 76 answers and gives a profile with French narratives', async () => {
    const server = await machine.start();
    const blocks = await servedGuide(server, 'french');
    expect(blocks.map((block) => block.lang)).toEqual(['sh', 'sh', 'sh', 'sh']);
    await runTwice(await gettingStarted(server), [...ofLang(blocks, 'sh')], machine.env(server), (output) => {
      expect(output).toContain('{"language":"fr","requested_language":"fr"}');
      // The first statement as the French bank words it.
      expect(output).toContain(`mn_001  ${banks.fr.items[0]?.text}\n`);
      expect(output).toContain('{"status":"scoring","responses_received":76}');
      expect(output).toMatch(/"language": "fr",\n\s+"version": "v1-fr",\n\s+"narrative": "[A-ZÀ-Ý]/);
    });
  }, 180_000);
});
