import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gettingStarted, ofLang, readerMachine, runTwice, servedGuide } from '../support/docs-blocks.js';

describe('/docs/assessments, pasted by a reader after getting started, twice in a row', () => {
  const machine = readerMachine();

  it('draws the profile of the subject as a dark SVG chart 360 px wide into profile.svg', async () => {
    const server = await machine.start();
    const blocks = await servedGuide(server, 'assessments');
    expect(blocks.map((block) => block.lang)).toEqual(['sh']);
    await runTwice(await gettingStarted(server), [...ofLang(blocks, 'sh')], machine.env(server), (_output, dir) => {
      const svg = readFileSync(join(dir, 'profile.svg'), 'utf8');
      expect(svg).toMatch(/^<svg[^>]* width="360"/);
      expect(svg).toContain('<title');
      // The chart of the profile getting-started made: every answer 4, so administrative is 0.75.
      expect(svg).toContain('Administrative: 0.75 on a scale from 0 to 1');
    });
  }, 180_000);
});
