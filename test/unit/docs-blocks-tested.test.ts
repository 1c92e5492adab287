import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { guides } from '../../src/http/docs/render.js';
import { guideSource, root } from '../support/docs-blocks.js';

/** Where each served guide's blocks run; getting-started's run beside the README's quickstart. */
const testOf = (slug: string) => (slug === 'getting-started' ? 'test/e2e/docs-run.test.ts' : `test/e2e/docs-guide-${slug}.test.ts`);

describe('every code block of every served guide runs in a docs test', () => {
  it.each(guides.map((guide) => guide.slug))('/docs/%s: a test runs its blocks, having pinned their languages', (slug) => {
    const fences = [...guideSource(slug).matchAll(/^ *```(\w+)$/gm)].map((match) => match[1]);
    if (fences.length === 0) return;
    const file = join(root, testOf(slug));
    expect(existsSync(file), `${testOf(slug)} runs the ${fences.length} block(s) of docs/${slug}.md`).toBe(true);
    const test = readFileSync(file, 'utf8').replace(/\s+/g, '').replaceAll(',]', ']');
    if (slug === 'getting-started') return expect(test).toContain('gettingStarted(server)');
    expect(test).toContain(`servedGuide(server,'${slug}')`);
    // Pinned, so a block added to the guide fails that test until the test runs it too.
    expect(test).toContain(`toEqual(${JSON.stringify(fences).replaceAll('"', "'")})`);
  });
});
