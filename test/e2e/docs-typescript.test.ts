import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** The TypeScript blocks of a served guide, as a reader copies them (the server's `{{base_url}}` filled in). */
function typescriptBlocks(guide: string): string[] {
  const text = readFileSync(join(root, 'docs', `${guide}.md`), 'utf8');
  return [...text.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!.replaceAll('{{base_url}}', 'http://127.0.0.1:8080'));
}

/** What strict TypeScript says of each file, as a project of the reader's would (ESM, Node's types, the packages installed here). */
function diagnostics(files: string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    types: ['node'],
    skipLibCheck: true,
  });
  return ts
    .getPreEmitDiagnostics(program)
    .map((diagnostic) => `${diagnostic.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`);
}

/**
 * The blocks a reader pastes whole: the webhooks guide's receiver, and the client guide's first example. The client
 * guide's later blocks continue that example (they use its `nature` and `subject`), as do careers'.
 */
const standalone: [string, (blocks: string[]) => string[]][] = [
  ['webhooks', (blocks) => blocks],
  ['client', (blocks) => blocks.slice(0, 1)],
];

describe('the TypeScript of the served guides', () => {
  it.each(standalone)('compiles as strict TypeScript: the blocks a reader pastes whole of /docs/%s', (guide, pasted) => {
    const blocks = pasted(typescriptBlocks(guide));
    expect(blocks.length).toBeGreaterThan(0);
    // Inside the checkout, so its packages (standardwebhooks, the client's workspace) resolve as they would once installed.
    const dir = mkdtempSync(join(root, '.docs-ts-'));
    try {
      const files = blocks.map((block, index) => {
        const file = join(dir, `block-${index}.mts`);
        // Each block stands alone, as a reader pastes it: a module of its own.
        writeFileSync(file, `${block}\nexport {};\n`);
        return file;
      });
      expect(diagnostics(files)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('gives, in the client guide and the client README, a consent ui_hash the API accepts (sha256: and 64 hex digits)', () => {
    for (const file of ['docs/client.md', 'packages/client/README.md']) {
      const hashes = [...readFileSync(join(root, file), 'utf8').matchAll(/ui_hash: '([^']*)'/g)].map((match) => match[1]);
      expect(hashes.length, file).toBeGreaterThan(0);
      for (const hash of hashes) expect(hash, file).toMatch(/^sha256:[0-9a-f]{64}$/);
    }
  });
});
