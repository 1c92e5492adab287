import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inCheckout, root, typescriptDiagnostics } from '../support/docs-blocks.js';

/** The TypeScript blocks of a served guide, as a reader copies them (the server's `{{base_url}}` filled in). */
function typescriptBlocks(guide: string): string[] {
  const text = readFileSync(join(root, 'docs', `${guide}.md`), 'utf8');
  return [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!.replaceAll('{{base_url}}', 'http://127.0.0.1:8080'));
}

/**
 * The blocks a reader pastes whole: the webhooks guide's receiver, and the client guide's first example. The client
 * guide's later blocks continue that example (they use its `nature` and `subject`), as do careers'.
 */
const standalone: [string, (blocks: string[]) => string[]][] = [
  ['client', (blocks) => blocks.slice(0, 1)],
];

describe('the TypeScript of the served guides', () => {
  it.each(standalone)('compiles as strict TypeScript: the blocks a reader pastes whole of /docs/%s', async (guide, pasted) => {
    const blocks = pasted(typescriptBlocks(guide));
    expect(blocks.length).toBeGreaterThan(0);
    // Each block stands alone, as a reader pastes it: a module of its own.
    const files = Object.fromEntries(blocks.map((block, index) => [`block-${index}.mts`, `${block}\nexport {};\n`]));
    const found = await inCheckout(files, (dir) => typescriptDiagnostics(Object.keys(files).map((name) => join(dir, name))));
    expect(found).toEqual([]);
  });

  it('gives, in the client guide and the client README, a consent ui_hash the API accepts (sha256: and 64 hex digits)', () => {
    for (const file of ['docs/client.md', 'packages/client/README.md']) {
      const hashes = [...readFileSync(join(root, file), 'utf8').matchAll(/ui_hash: '([^']*)'/g)].map((match) => match[1]);
      expect(hashes.length, file).toBeGreaterThan(0);
      for (const hash of hashes) expect(hash, file).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
  });
});
