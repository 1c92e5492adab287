import type { FastifyInstance } from 'fastify';
import { type ApiKeyRecord, keyHint } from '../../domain/api-keys.js';
import { readUsage } from '../../projections/usage.js';
import { type DashboardContext, environmentOfSegment, queryValue, sendPage, viewerOf } from '../context.js';
import { type Html, html } from '../html.js';
import { page } from '../layout.js';
import { environmentTabs, segmentParam } from './environment-tabs.js';
import { quotaSection } from './usage-quota.js';

const DAYS = 30;
const DAY_MS = 86_400_000;
const KEY_ID = /^key_[0-9A-Z]{26}$/;

/** The last 30 UTC days, today included, oldest first. */
function lastDays(now: Date): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: DAYS }, (_, index) => new Date(today - (DAYS - 1 - index) * DAY_MS).toISOString().slice(0, 10));
}

/**
 * Completions per day as bars, drawn on the server: an image with a title and a description, each bar with its
 * own title, and the same figures in a table below for anyone who cannot see it. Presentation attributes only,
 * so the page's policy (no inline style) blocks nothing.
 */
function dayChart(days: string[], counts: Map<string, number>, caption: string): Html {
  const width = 720;
  const height = 200;
  const top = 12;
  const bottom = 28;
  const left = 36;
  const most = Math.max(1, ...counts.values());
  const step = (width - left) / days.length;
  const y = (count: number) => top + (height - top - bottom) * (1 - count / most);
  const bars = days.map((day, index) => {
    const count = counts.get(day) ?? 0;
    const x = left + index * step + 2;
    return html`<rect x="${x.toFixed(1)}" y="${y(count).toFixed(1)}" width="${(step - 4).toFixed(1)}" height="${(height - bottom - y(count)).toFixed(1)}" fill="#1a7f37"><title>${day}: ${count}</title></rect>`;
  });
  const labels = days
    .filter((_, index) => index % 7 === DAYS % 7 || index === DAYS - 1)
    .map(
      (day) =>
        html`<text x="${(left + days.indexOf(day) * step + step / 2).toFixed(1)}" y="${height - 8}" text-anchor="middle">${day.slice(5)}</text>`,
    );
  const total = [...counts.values()].reduce((sum, count) => sum + count, 0);
  return html`<figure>
<svg class="chart" viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-labelledby="chart-title chart-desc">
<title id="chart-title">${caption}</title>
<desc id="chart-desc">${total} completed assessments from ${days[0]} to ${days.at(-1)}, at most ${most} in a day.</desc>
<line x1="${left}" y1="${height - bottom}" x2="${width}" y2="${height - bottom}" stroke="#57606a"/>
<text x="${left - 6}" y="${top + 4}" text-anchor="end">${most}</text><text x="${left - 6}" y="${height - bottom}" text-anchor="end">0</text>
${bars}${labels}
</svg>
<figcaption>${caption}: ${total} in ${DAYS} days.</figcaption>
</figure>
<details><summary>The figures as a table</summary><div class="scroll" tabindex="0"><table><thead><tr><th scope="col">Day (UTC)</th><th scope="col">Completed</th></tr></thead><tbody>${days.map(
    (day) => html`<tr><td>${day}</td><td>${counts.get(day) ?? 0}</td></tr>`,
  )}</tbody></table></div></details>`;
}

export function registerUsagePage(scope: FastifyInstance, context: DashboardContext): void {
  scope.get('/:segment/usage', async (request, reply) => {
    const segment = segmentParam(request);
    const environment = environmentOfSegment[segment];
    const env = context.envs[environment];
    const now = context.clock();
    const days = lastDays(now);
    const report = await readUsage(
      env.readModels,
      { from: new Date(`${days[0]}T00:00:00Z`), to: new Date(Date.parse(`${days.at(-1)}T00:00:00Z`) + DAY_MS), granularity: 'day' },
      env.livemode,
    );
    const keys = new Map((await context.keys.list()).filter((key) => key.environment === environment).map((key) => [key.id, key]));
    const chosen = KEY_ID.test(queryValue(request, 'key')) ? queryValue(request, 'key') : undefined;
    const rows = chosen === undefined ? report.data : report.data.filter((row) => row.key_id === chosen);
    const perDay = new Map<string, number>();
    for (const row of rows) perDay.set(row.period, (perDay.get(row.period) ?? 0) + row.completed_assessments);
    const perKey = new Map<string | null, [number, number]>();
    for (const row of report.data) {
      const [assessments, situational] = perKey.get(row.key_id) ?? [0, 0];
      perKey.set(row.key_id, [assessments + row.completed_assessments, situational + row.completed_situational_assessments]);
    }
    const keyLabel = (id: string | null, key: ApiKeyRecord | undefined) =>
      key === undefined ? (id ?? 'no key') : `${key.name} (${keyHint(key, key.last4)})`;
    const caption =
      chosen === undefined
        ? 'Completed assessments per day, every key'
        : `Completed assessments per day, key ${keyLabel(chosen, keys.get(chosen))}`;
    const viewer = await viewerOf(context, request, reply);
    const keyRows = [...perKey].map(
      ([id, [count, situational]]: [string | null, [number, number]]) =>
        html`<tr><td>${id === null ? keyLabel(id, undefined) : html`<a href="/dashboard/${segment}/usage?key=${id}"${id === chosen ? html` aria-current="true"` : ''}>${keyLabel(id, keys.get(id))}</a>`}</td><td>${count}</td><td>${situational}</td></tr>`,
    );
    const body = html`${environmentTabs(segment, 'usage')}
${await quotaSection(context, environment)}
<h2>Last ${DAYS} days</h2>
${dayChart(days, perDay, caption)}
<h2>Per key, last ${DAYS} days</h2>
${
  keyRows.length === 0
    ? html`<p>No completed assessments in this environment in the last ${DAYS} days.</p>`
    : html`<div class="scroll" tabindex="0"><table><thead><tr><th scope="col">Key</th><th scope="col">Completed</th><th scope="col">Situational</th></tr></thead><tbody>${keyRows}</tbody></table></div>${chosen === undefined ? '' : html`<p><a href="/dashboard/${segment}/usage">Every key</a></p>`}`
}
<p class="hint">A completion counts for the key that sent the last answers of the assessment, on the UTC day it was scored; a situational assessment for the key that asked for it, once it is completed (the same figures as <code>GET /v1/nature/usage</code>).</p>`;
    return sendPage(reply, page('Usage', body, viewer, 'Usage'));
  });
}
