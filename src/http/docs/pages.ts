import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { careersMapV1 } from '../../careers/careers-map-v1.js';
import type { Config } from '../../settings/config.js';
import { packagePath } from '../static-asset.js';
import { mappingTable } from './careers-map-table.js';
import { plansTable } from './plans-table.js';
import { BASE_URL, type DocsPage, guides, renderPage } from './render.js';

/** What the guides say about this server's own settings. */
export type DocsSettings = Config['webhooks'];

/** 5000 → "5 s", 1800000 → "30 min", 36000000 → "10 h"; `rough` keeps two significant digits (5.08 min → 5.1 min). */
export function duration(ms: number, rough = false): string {
  const units: [number, string][] = [
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1000, 's'],
  ];
  for (const [size, unit] of units) {
    if (ms >= size) return `${Number(rough ? (ms / size).toPrecision(2) : (ms / size).toFixed(2))} ${unit}`;
  }
  return `${ms} ms`;
}

/** The retry schedule as a Markdown table: when each attempt is made if the ones before it failed. */
function retryTable(scheduleMs: readonly number[]): string {
  const rows = ['| attempt | sent | about this long after the first attempt |', '|---|---|---|', '| 1 | when the event happens | — |'];
  let total = 0;
  scheduleMs.forEach((delay, index) => {
    total += delay;
    rows.push(`| ${index + 2} | ${duration(delay)} after attempt ${index + 1} failed | ${duration(total, true)} |`);
  });
  return rows.join('\n');
}

/** Every page under /docs, rendered once at start-up: `index` is /docs itself. */
export function loadDocsPages(settings: DocsSettings): Map<string, DocsPage> {
  // By its index page: src/http/docs/ (this module's own directory) is not the guides'.
  const dir = dirname(packagePath('docs/index.md'));
  const values: Record<string, string> = {
    retry_schedule: retryTable(settings.retryScheduleMs),
    attempts: String(settings.retryScheduleMs.length + 1),
    webhook_timeout: duration(settings.timeoutMs),
    careers_mapping: mappingTable(careersMapV1),
    plans_table: plansTable(),
    // Stays a placeholder: each request fills in the origin it came to.
    base_url: BASE_URL,
  };
  const pages = new Map<string, DocsPage>();
  for (const { slug, title } of [{ slug: 'index', title: 'Documentation' }, ...guides]) {
    const source = readFileSync(join(dir, `${slug}.md`), 'utf8').replace(/\{\{(\w+)\}\}/g, (_whole, name: string) => {
      // A misspelt placeholder fails the start (and the tests), rather than show braces to readers.
      const value = values[name];
      if (value === undefined) throw new Error(`docs/${slug}.md names an unknown value {{${name}}}`);
      return value;
    });
    pages.set(slug, renderPage(slug, title, source));
  }
  return pages;
}
