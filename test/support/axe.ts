import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** A violation as a reader of a failed test needs it: the rule, its impact and where. */
export interface Violation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** What of axe-core's API this module calls. */
interface Axe {
  run(
    context: unknown,
    options: object,
  ): Promise<{ violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[] }>;
}

/**
 * The serious and critical accessibility violations axe-core finds in the page as it stands (shadow roots
 * included). It is evaluated through the browser's debugging protocol, which a page's CSP does not govern.
 */
export async function seriousViolations(page: Page): Promise<Violation[]> {
  await page.evaluate(axeSource);
  return page.evaluate(async () => {
    // In the page: axe-core, as the evaluation above left it, and the page's own document.
    const { axe, document } = globalThis as unknown as { axe: Axe; document: unknown };
    const { violations } = await axe.run(document, { resultTypes: ['violations'] });
    return violations
      .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
      .map(({ id, impact, help, nodes }) => ({ id, impact, help, targets: nodes.map((node) => JSON.stringify(node.target)) }));
  });
}
