import { type Construct, type Family, intelligences, natures } from '../scoring/constructs.js';
import type { Language } from '../scoring/languages.js';
import { type Band, bandOf } from '../scoring/narratives-v1.js';
import type { Scores } from '../scoring/scorer.js';
import { type ChartWords, chartWords } from './chart-words.js';
import { element, textElement } from './svg-markup.js';
import { textWidth, type Weight, wrapText } from './text-metrics.js';
import { type ChartTheme, type Palette, palettes } from './themes.js';

/** What the chart shows of a profile (as the API shows it): its scores, their narratives, and the version that scored them. */
export interface ChartedProfile extends Scores {
  scoring_version: string;
  /** The language the chart is drawn in, its narratives' too. */
  language: Language;
  descriptions: { version: string } & Record<Family, readonly { construct: string; text: string }[]>;
}

export interface ChartOptions {
  theme: ChartTheme;
  /** The chart's width in px; its height follows from what it holds. */
  width: number;
}

/** From a phone held upright to a wide desktop window; the default suits a column of a page. */
export const CHART_WIDTHS = { min: 320, max: 1600, default: 960 } as const;

const FONT_FAMILY = "'DejaVu Sans', Verdana, sans-serif";

interface TextStyle {
  size: number;
  weight: Weight;
  /** The height of one line, which the text sits centred in. */
  line: number;
}

const TITLE: TextStyle = { size: 20, weight: 'bold', line: 28 };
const LEAD: TextStyle = { size: 13, weight: 'regular', line: 18 };
const HEADING: TextStyle = { size: 16, weight: 'bold', line: 24 };
const LABEL: TextStyle = { size: 14, weight: 'bold', line: 20 };
const BODY: TextStyle = { size: 13, weight: 'regular', line: 18 };
const SCALE: TextStyle = { size: 12, weight: 'regular', line: 16 };
/** A value shares its label's line. */
const VALUE: TextStyle = { ...BODY, line: LABEL.line };

const TRACK_HEIGHT = 12;
const GAP = { afterLabel: 16, afterTrack: 12, afterValue: 24, inline: 12, row: 14, panel: 24 };
/** Narratives go beside the bars where the track and the narratives have this much room together, else under each bar. */
const BESIDE_ROOM = 480;
/** The track's share of that room; the narratives take the rest. */
const TRACK_SHARE = 0.4;

/** DejaVu Sans's ascent and descent, in em: where a baseline falls for the text to sit centred in its line. */
const ASCENT = 0.928;
const DESCENT = 0.236;
const baseline = (top: number, style: TextStyle) => top + (style.line - (ASCENT + DESCENT) * style.size) / 2 + ASCENT * style.size;

const families: readonly Family[] = ['natures', 'intelligences'];

const valueText = (score: number, band: Band, words: ChartWords) => `${words.number(score, 2)} · ${words.bands[band]}`;

/**
 * Each band's stretch of the 0..1 track. Raw scores run 2..10 in steps of 0.5 (score = (raw − 2) / 8), and a band
 * ends halfway between its last raw score and the next band's first.
 */
const bandStretches: readonly { band: Band; from: number; to: number }[] = (() => {
  const stretches: { band: Band; from: number; to: number }[] = [];
  for (let raw = 2; raw <= 10; raw += 0.5) {
    const band = bandOf(raw);
    const last = stretches.at(-1);
    if (last?.band === band) continue;
    const from = last === undefined ? 0 : (raw - 0.25 - 2) / 8;
    if (last !== undefined) last.to = from;
    stretches.push({ band, from, to: 1 });
  }
  return stretches;
})();

interface Row {
  construct: Construct;
  label: string;
  score: number;
  band: Band;
  narrative: string | undefined;
}

/** Each family's constructs in the alphabetical order of their labels in each language, so never ranked in any: sorted once. */
function alphabeticalIn(language: Language): Record<Family, readonly Construct[]> {
  const { compare } = new Intl.Collator(language);
  const { labels } = chartWords[language];
  const sorted = (constructs: readonly Construct[]) => [...constructs].sort((a, b) => compare(labels[a], labels[b]));
  return { natures: sorted(natures), intelligences: sorted(intelligences) };
}
const alphabetical: Readonly<Record<Language, Record<Family, readonly Construct[]>>> = {
  en: alphabeticalIn('en'),
  fr: alphabeticalIn('fr'),
};

/** A family's rows, in the alphabetical order of the chart's language. */
function rowsOf(profile: ChartedProfile, family: Family, words: ChartWords): Row[] {
  const narratives = new Map<string, string>(profile.descriptions[family].map(({ construct, text }) => [construct, text]));
  return alphabetical[profile.language][family].map((construct) => {
    const score = profile[family][construct];
    if (score === undefined || !(score >= 0 && score <= 1)) throw new RangeError(`${family}.${construct} is ${score}, not a score of 0..1`);
    return { construct, label: words.labels[construct], score, band: bandOf(score * 8 + 2), narrative: narratives.get(construct) };
  });
}

/** Where things go at a width: the columns every row shares. */
interface Columns {
  pad: number;
  /** The width inside the padding. */
  inner: number;
  trackX: number;
  trackWidth: number;
  narrativeX: number;
  narrativeWidth: number;
}
/** Wide: label, track, value and narrative side by side, each in its column. */
interface Beside extends Columns {
  narratives: 'beside';
  valueX: number;
}
/** Narrow: the track under the label, the narrative under the track; the value ends the label's line if every value fits there, else it follows the track. */
interface Below extends Columns {
  narratives: 'below';
  valueInline: boolean;
}
type Geometry = Beside | Below;

function geometryFor(width: number, words: ChartWords): Geometry {
  const pad = width < 480 ? 16 : 32;
  const inner = width - 2 * pad;
  const labelWidth = Math.ceil(Math.max(...[...natures, ...intelligences].map((construct) => widthOf(words.labels[construct], LABEL))));
  const valueWidth = Math.ceil(Math.max(...bandStretches.map(({ band }) => widthOf(valueText(0, band, words), VALUE))));
  const room = inner - labelWidth - GAP.afterLabel - GAP.afterTrack - valueWidth - GAP.afterValue;
  if (room >= BESIDE_ROOM) {
    const trackX = pad + labelWidth + GAP.afterLabel;
    const trackWidth = Math.round(room * TRACK_SHARE);
    const valueX = trackX + trackWidth + GAP.afterTrack;
    const narrativeX = valueX + valueWidth + GAP.afterValue;
    return { pad, inner, trackX, trackWidth, narrativeX, narrativeWidth: pad + inner - narrativeX, narratives: 'beside', valueX };
  }
  return {
    pad,
    inner,
    trackX: pad,
    trackWidth: inner,
    narrativeX: pad,
    narrativeWidth: inner,
    narratives: 'below',
    valueInline: labelWidth + GAP.inline + valueWidth <= inner,
  };
}

const widthOf = (text: string, style: TextStyle) => textWidth(text, style.size, style.weight);

/** One line of text whose line box starts at `top`. */
function line(text: string, x: number, top: number, style: TextStyle, fill: string, anchor?: 'middle' | 'end'): string {
  return textElement(
    'text',
    {
      x,
      y: baseline(top, style),
      'font-size': style.size,
      'font-weight': style.weight === 'bold' ? 'bold' : undefined,
      fill,
      'text-anchor': anchor,
    },
    text,
  );
}

/** Wrapped text, one <text> per line, from `top` down; with its height. */
function paragraph(text: string, x: number, top: number, width: number, style: TextStyle, fill: string) {
  const lines = wrapText(text, width, style.size, style.weight);
  return { markup: lines.map((text, index) => line(text, x, top + index * style.line, style, fill)), height: lines.length * style.line };
}

/** The 0..1 track shaded by band, the score's bar over it, and the track's outline. */
function track(score: number, x: number, top: number, width: number, palette: Palette): string[] {
  return [
    ...bandStretches.map(({ band, from, to }) =>
      element('rect', { x: x + from * width, y: top, width: (to - from) * width, height: TRACK_HEIGHT, fill: palette.bands[band] }),
    ),
    element('rect', { x, y: top, width: score * width, height: TRACK_HEIGHT, fill: palette.bar }),
    element('rect', { x: x + 0.5, y: top + 0.5, width: width - 1, height: TRACK_HEIGHT - 1, fill: 'none', stroke: palette.edge }),
  ];
}

/**
 * A construct's row: its text alternative (the <title>, and the narrative as its <desc>) for assistive technology,
 * and what is drawn, hidden from it as the same words again.
 */
function row(item: Row, geometry: Geometry, top: number, palette: Palette, words: ChartWords): { markup: string; height: number } {
  const { pad, inner, trackX, trackWidth, narrativeX, narrativeWidth } = geometry;
  const value = valueText(item.score, item.band, words);
  const drawn = [line(item.label, pad, top, LABEL, palette.ink)];
  let bottom: number;
  if (geometry.narratives === 'beside') {
    drawn.push(...track(item.score, trackX, top + (LABEL.line - TRACK_HEIGHT) / 2, trackWidth, palette));
    drawn.push(line(value, geometry.valueX, top, VALUE, palette.ink));
    const narrativeTop = top + (LABEL.line - BODY.line) / 2;
    const narrative =
      item.narrative === undefined ? undefined : paragraph(item.narrative, narrativeX, narrativeTop, narrativeWidth, BODY, palette.ink);
    drawn.push(...(narrative?.markup ?? []));
    bottom = Math.max(top + LABEL.line, narrativeTop + (narrative?.height ?? 0));
  } else {
    if (geometry.valueInline) drawn.push(line(value, pad + inner, top, VALUE, palette.ink, 'end'));
    const trackTop = top + LABEL.line + 2;
    drawn.push(...track(item.score, trackX, trackTop, trackWidth, palette));
    bottom = trackTop + TRACK_HEIGHT + 4;
    if (!geometry.valueInline) {
      drawn.push(line(value, pad, bottom, BODY, palette.ink));
      bottom += BODY.line;
    }
    if (item.narrative !== undefined) {
      const narrative = paragraph(item.narrative, narrativeX, bottom, narrativeWidth, BODY, palette.ink);
      drawn.push(...narrative.markup);
      bottom += narrative.height;
    }
  }
  const id = `construct-${item.construct}`;
  const markup = element(
    'g',
    {
      id,
      role: 'listitem',
      'aria-labelledby': `${id}-title`,
      'aria-describedby': item.narrative === undefined ? undefined : `${id}-desc`,
    },
    [
      textElement('title', { id: `${id}-title` }, words.rowTitle(item.label, words.number(item.score, 2), words.bands[item.band])),
      ...(item.narrative === undefined ? [] : [textElement('desc', { id: `${id}-desc` }, item.narrative)]),
      element('g', { 'aria-hidden': 'true' }, drawn),
    ],
  );
  return { markup, height: bottom - top + GAP.row };
}

/** A family's panel: its heading, the scale's 0, 0.5 and 1 over the tracks, and a row per construct in alphabetical order. */
function panel(family: Family, rows: readonly Row[], geometry: Geometry, top: number, palette: Palette, words: ChartWords) {
  const { pad, trackX, trackWidth } = geometry;
  const scaleTop = top + HEADING.line;
  const scale = [
    line(words.number(0, 0), trackX, scaleTop, SCALE, palette.muted),
    line(words.number(0.5, 1), trackX + trackWidth / 2, scaleTop, SCALE, palette.muted, 'middle'),
    line(words.number(1, 0), trackX + trackWidth, scaleTop, SCALE, palette.muted, 'end'),
  ];
  let y = scaleTop + SCALE.line + 4;
  const items = rows.map((item) => {
    const drawn = row(item, geometry, y, palette, words);
    y += drawn.height;
    return drawn.markup;
  });
  const headingId = `${family}-heading`;
  const markup = element('g', { id: family, role: 'group', 'aria-labelledby': headingId }, [
    textElement(
      'text',
      { id: headingId, x: pad, y: baseline(top, HEADING), 'font-size': HEADING.size, 'font-weight': 'bold', fill: palette.ink },
      words.headings[family],
    ),
    element('g', { 'aria-hidden': 'true' }, scale),
    element('g', { role: 'list' }, items),
  ]);
  return { markup, height: y - top };
}

/**
 * A profile as an SVG bar chart: the Natures, then the Intelligences, each in alphabetical order and never ranked,
 * a bar per construct on the 0..1 scale over its band's shading, the band in words, and the narrative beside the bar
 * (below it where the chart is narrow). Pure: the same profile and options give the same bytes, whatever the order
 * of the profile's keys; nothing is loaded from elsewhere, and colours are attributes, so a policy of
 * `default-src 'none'` leaves it whole.
 */
export function renderProfileChart(profile: ChartedProfile, { theme, width }: ChartOptions): string {
  if (!Number.isInteger(width) || width < CHART_WIDTHS.min || width > CHART_WIDTHS.max) {
    throw new RangeError(`a chart is ${CHART_WIDTHS.min}..${CHART_WIDTHS.max} px wide, not ${width}`);
  }
  const palette = palettes[theme];
  const words = chartWords[profile.language];
  const geometry = geometryFor(width, words);
  const { pad, inner } = geometry;
  const lead = paragraph(words.lead, pad, pad + TITLE.line, inner, LEAD, palette.muted);
  let y = pad + TITLE.line + lead.height + GAP.panel;
  const panels = families.map((family) => {
    const drawn = panel(family, rowsOf(profile, family, words), geometry, y, palette, words);
    y += drawn.height + GAP.panel;
    return drawn.markup;
  });
  const height = Math.ceil(y - GAP.panel - GAP.row + pad);
  return `${element(
    'svg',
    {
      xmlns: 'http://www.w3.org/2000/svg',
      width,
      height,
      viewBox: `0 0 ${width} ${height}`,
      'aria-labelledby': 'profile-chart-title',
      'aria-describedby': 'profile-chart-desc',
      lang: profile.language,
      'font-family': FONT_FAMILY,
    },
    [
      textElement('title', { id: 'profile-chart-title' }, words.title),
      textElement('desc', { id: 'profile-chart-desc' }, words.description(profile.scoring_version, profile.descriptions.version)),
      element('rect', { width, height, fill: palette.background }),
      element('g', { 'aria-hidden': 'true' }, [line(words.title, pad, pad, TITLE, palette.ink), ...lead.markup]),
      ...panels,
    ],
  )}\n`;
}
