import { describe, expect, it } from 'vitest';
import { gettingStarted, ofLang, readerMachine, runTwice, servedGuide } from '../support/docs-blocks.js';

/** The lines the block prints of each answer it gets: its status, its request id, and whether it was replayed. */
function answers(output: string) {
  return [
    ...output.replaceAll('\r', '').matchAll(/^HTTP\/[\d.]+ (\d{3})[^\n]*\n(?:request-id: (\S+)\n)(?:idempotent-replayed: (\w+)\n)?/gim),
  ].map((match) => ({
    status: Number(match[1]),
    requestId: match[2],
    replayed: match[3] === 'true',
  }));
}

describe('/docs/conventions, pasted by a reader after getting started, twice in a row', () => {
  const machine = readerMachine();

  it('retries a subject creation with one idempotency key: the first answer comes back, replayed, on every retry', async () => {
    const server = await machine.start();
    const blocks = await servedGuide(server, 'conventions');
    expect(blocks.map((block) => block.lang)).toEqual(['sh']);
    const runs = await runTwice(await gettingStarted(server), [...ofLang(blocks, 'sh')], machine.env(server));
    const [first, second] = runs.map(answers);
    expect(first?.map(({ status, replayed }) => ({ status, replayed }))).toEqual([
      { status: 201, replayed: false },
      { status: 201, replayed: true },
    ]);
    // The second terminal gets the stored first answer too: same status, same first request id, replayed.
    expect(second?.map(({ status, replayed }) => ({ status, replayed }))).toEqual([
      { status: 201, replayed: true },
      { status: 201, replayed: true },
    ]);
    const requestIds = new Set([...first!, ...second!].map((answer) => answer.requestId));
    expect([...requestIds]).toEqual([expect.stringMatching(/^req_\w+$/)]);
  }, 180_000);
});
