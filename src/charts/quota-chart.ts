import { element, textElement } from './svg-markup.js';

/** A month's completions against the plan, as the dashboard's usage page draws them. */
export interface QuotaChartInput {
  /** `2026-11`. */
  month: string;
  /** Completions per day of the month so far, the first day first (today last). */
  perDay: readonly number[];
  /** Days in the month: the chart spans them all, so the month's end is in view. */
  days: number;
  /** Null: no quota (the sandbox), no line drawn. */
  quota: number | null;
  /** The hard cap, when one is set (it equals the quota). */
  hardCap: number | null;
  /** Ids of the title and description, unique in the page. */
  id: string;
}

const WIDTH = 720;
const HEIGHT = 220;
const TOP = 16;
const BOTTOM = 28;
const LEFT = 56;
const RIGHT = 8;
/** Within the quota, and past it: 5.2:1 and 5.0:1 on white, so each bar shows against the page (WCAG 1.4.11). */
const INCLUDED = '#1a7f37';
const OVERAGE = '#b35900';
const RULE = '#57606a';

const figure = (n: number) => n.toLocaleString('en-US');

/**
 * The running total of the month's completions, one bar per day so far, and the quota as a dashed line across the
 * whole month: a bar past the line is overage, drawn in another colour and named in its title, so colour is never the
 * only sign. An image with a title and a description (role img), drawn with presentation attributes only (the
 * dashboard's policy allows no inline style); the page shows the same figures as text beside it.
 */
export function renderQuotaChart({ month, perDay, days, quota, hardCap, id }: QuotaChartInput): string {
  const running: number[] = [];
  for (const count of perDay) running.push((running.at(-1) ?? 0) + count);
  const used = running.at(-1) ?? 0;
  const top = Math.max(1, used, quota ?? 0);
  const step = (WIDTH - LEFT - RIGHT) / days;
  const y = (value: number) => TOP + (HEIGHT - TOP - BOTTOM) * (1 - value / top);
  const base = HEIGHT - BOTTOM;
  const bars = running.map((total, index) => {
    const day = `${month}-${String(index + 1).padStart(2, '0')}`;
    const over = quota !== null && total > quota;
    const words = `${day}, running total ${figure(total)}${over ? `, ${figure(total - quota)} past the quota` : ''}`;
    return element(
      'rect',
      { x: LEFT + index * step + 1, y: y(total), width: step - 2, height: base - y(total), fill: over ? OVERAGE : INCLUDED },
      [textElement('title', {}, words)],
    );
  });
  const line =
    quota === null
      ? []
      : [
          element('line', {
            x1: LEFT,
            y1: y(quota),
            x2: WIDTH - RIGHT,
            y2: y(quota),
            stroke: RULE,
            'stroke-width': 2,
            'stroke-dasharray': '6 4',
          }),
          textElement(
            'text',
            { x: WIDTH - RIGHT, y: y(quota) - 4, 'text-anchor': 'end' },
            `${hardCap === null ? 'quota' : 'hard cap'} ${figure(quota)}`,
          ),
        ];
  const ticks = [1, 8, 15, 22, days].map((day) =>
    textElement(
      'text',
      { x: LEFT + (day - 0.5) * step, y: HEIGHT - 8, 'text-anchor': 'middle' },
      `${month.slice(5)}-${String(day).padStart(2, '0')}`,
    ),
  );
  const description =
    quota === null
      ? `${figure(used)} completed assessments so far in ${month}; no quota applies.`
      : `${figure(used)} of ${figure(quota)} included completed assessments used so far in ${month}` +
        (used > quota ? `, ${figure(used - quota)} past the quota.` : `, ${figure(quota - used)} left.`);
  return element(
    'svg',
    { class: 'chart', viewBox: `0 0 ${WIDTH} ${HEIGHT}`, width: '100%', role: 'img', 'aria-labelledby': `${id}-title ${id}-desc` },
    [
      textElement('title', { id: `${id}-title` }, `Completed assessments in ${month}, running total by day`),
      textElement('desc', { id: `${id}-desc` }, description),
      element('line', { x1: LEFT, y1: base, x2: WIDTH - RIGHT, y2: base, stroke: RULE }),
      textElement('text', { x: LEFT - 6, y: TOP + 4, 'text-anchor': 'end' }, figure(top)),
      textElement('text', { x: LEFT - 6, y: base, 'text-anchor': 'end' }, '0'),
      ...bars,
      ...line,
      ...ticks,
    ],
  );
}
