import { describe, expect, it } from 'vitest';
import { chartWords } from '../../src/charts/chart-words.js';
import { CHART_WIDTHS, type ChartedProfile, renderProfileChart } from '../../src/charts/profile-chart.js';
import { textWidth } from '../../src/charts/text-metrics.js';
import { type ChartTheme, chartThemes, palettes } from '../../src/charts/themes.js';
import { type Construct, intelligences, natures } from '../../src/scoring/constructs.js';
import { bandOf } from '../../src/scoring/narratives-v1.js';
import { describeScores } from '../../src/scoring/scorer.js';
import { scorers } from '../../src/scoring/scorers.js';
import { knownResponses } from '../support/known-answers.js';
import { allElements, parseXml, textOf, type XmlElement } from '../support/xml.js';

/** The hand-worked profile of the known answers: 3 narratives per family, every band but high among the Intelligences. */
const scores = scorers['mn76-v2']!(Object.fromEntries(knownResponses.map(({ item_id, value }) => [item_id, value])));
const profile: ChartedProfile = { ...scores, language: 'en', descriptions: describeScores(scores, 'en') };

const WIDTHS = [320, 321, 360, 479, 480, 640, 800, 887, 888, 960, 1200, 1599, 1600];
const chart = (theme: ChartTheme, width: number) => parseXml(renderProfileChart(profile, { theme, width }));
const byId = (root: XmlElement, id: string) => allElements(root).find((element) => element.attributes.id === id);
const children = (element: XmlElement) => element.children.filter((child): child is XmlElement => typeof child !== 'string');
const labelOf = (construct: Construct) => chartWords.en.labels[construct];
const bandWords = (score: number) => bandOf(score * 8 + 2).replace('_', ' ');

/** WCAG 2.x relative luminance and contrast ratio. */
function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((at) => {
    const channel = Number.parseInt(hex.slice(at, at + 2), 16) / 255;
    return channel <= 0.04045 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
function contrast(one: string, other: string): number {
  const [light, dark] = [luminance(one), luminance(other)].sort((a, b) => b - a) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

describe('the profile chart', () => {
  it('is the same bytes for the same profile, whatever the order of its keys and narratives', () => {
    const reordered = (record: Record<string, number>) => Object.fromEntries(Object.entries(record).reverse());
    const shuffled: ChartedProfile = {
      descriptions: {
        intelligences: [...profile.descriptions.intelligences].reverse(),
        natures: [...profile.descriptions.natures].reverse(),
        version: profile.descriptions.version,
      },
      intelligences: reordered(profile.intelligences),
      natures: reordered(profile.natures),
      scoring_version: profile.scoring_version,
      language: 'en',
    };
    for (const theme of chartThemes) {
      for (const width of [320, 960, 1600]) {
        const svg = renderProfileChart(profile, { theme, width });
        expect(renderProfileChart(profile, { theme, width })).toBe(svg);
        expect(renderProfileChart(shuffled, { theme, width })).toBe(svg);
        expect(svg).not.toMatch(/\d{4}-\d{2}-\d{2}|NaN|undefined|Infinity/);
      }
    }
  });

  it.each(chartThemes.flatMap((theme) => [320, 1600].map((width) => ({ theme, width }))))(
    'matches its snapshot, $theme at $width px',
    async ({ theme, width }) => {
      await expect(renderProfileChart(profile, { theme, width })).toMatchFileSnapshot(`__snapshots__/profile-chart/${theme}-${width}.svg`);
    },
  );

  it('is well-formed XML at every width and theme, an SVG of that width with a title and a description', () => {
    for (const theme of chartThemes) {
      for (const width of WIDTHS) {
        const root = chart(theme, width);
        expect(root.name).toBe('svg');
        expect(root.attributes).toMatchObject({ xmlns: 'http://www.w3.org/2000/svg', width: String(width), lang: 'en' });
        expect(root.attributes.viewBox).toBe(`0 0 ${width} ${root.attributes.height}`);
        expect(textOf(byId(root, root.attributes['aria-labelledby']!)!)).toBe('Nature profile');
        expect(byId(root, root.attributes['aria-labelledby']!)!.name).toBe('title');
        expect(byId(root, root.attributes['aria-describedby']!)!.name).toBe('desc');
        expect(textOf(byId(root, 'profile-chart-desc')!)).toContain('9 Natures and 10 Intelligences in alphabetical order');
      }
    }
  });

  it('loads nothing and styles nothing: no reference elsewhere, no <style>, no style or script attribute', () => {
    const svg = renderProfileChart(profile, { theme: 'dark', width: 960 });
    const elements = allElements(parseXml(svg));
    expect(new Set(elements.map((element) => element.name))).toEqual(new Set(['svg', 'title', 'desc', 'rect', 'g', 'text']));
    const attributes = elements.flatMap((element) => Object.keys(element.attributes));
    expect(attributes.filter((name) => /^(href|xlink:href|src|style|on.*)$/.test(name))).toEqual([]);
    expect(svg).not.toMatch(/url\(|https?:\/\/(?!www\.w3\.org\/2000\/svg")/);
  });

  it('shows the Natures, then the Intelligences, each in alphabetical order, with labels in words', () => {
    const root = chart('light', 960);
    const panels = allElements(root).filter((element) => element.attributes.role === 'group');
    expect(panels.map((panel) => panel.attributes.id)).toEqual(['natures', 'intelligences']);
    expect(panels.map((panel) => textOf(byId(root, panel.attributes['aria-labelledby']!)!))).toEqual(['Natures', 'Intelligences']);
    for (const [panel, constructs] of [
      [panels[0]!, natures],
      [panels[1]!, intelligences],
    ] as const) {
      const items = allElements(panel).filter((element) => element.attributes.role === 'listitem');
      const ids = items.map((item) => item.attributes.id!.replace('construct-', ''));
      expect(ids).toEqual([...constructs]);
      expect(ids).toEqual([...ids].sort());
      // What is read, the labels, is in the same order.
      const labels = items.map((item) => textOf(allElements(item).find((element) => element.attributes['font-weight'] === 'bold')!));
      expect(labels).toEqual(constructs.map(labelOf));
      expect(labels).toEqual([...labels].sort());
    }
    expect(labelOf('bodily_fine_motor')).toBe('Bodily, fine motor');
    expect(labelOf('visual_graphic')).toBe('Visual, graphic');
  });

  it('never ranks: no word of rank or order of merit anywhere it writes', () => {
    for (const width of [320, 1600]) {
      const words = allElements(chart('light', width))
        .filter((element) => ['text', 'title', 'desc'].includes(element.name))
        .map(textOf);
      expect(words.length).toBeGreaterThan(60);
      for (const text of words) {
        expect(text).not.toMatch(/\b(rank\w*|ranked|top|best|strongest|weakest|highest|lowest|dominant|leading|first|1st|winner)\b/i);
        expect(text).not.toContain('#1');
      }
    }
  });

  it('gives every construct a text alternative: its label, score, scale and band, and its narrative where it has one', () => {
    const root = chart('light', 960);
    const ids = allElements(root).flatMap((element) => element.attributes.id ?? []);
    expect(new Set(ids).size).toBe(ids.length);
    for (const family of ['natures', 'intelligences'] as const) {
      const narratives = new Map(profile.descriptions[family].map(({ construct, text }) => [construct, text]));
      for (const [construct, score] of Object.entries(profile[family]) as [Construct, number][]) {
        const item = byId(root, `construct-${construct}`)!;
        const [title, ...rest] = children(item);
        expect(title!.name).toBe('title');
        expect(item.attributes['aria-labelledby']).toBe(title!.attributes.id);
        expect(textOf(title!)).toBe(`${labelOf(construct)}: ${score.toFixed(2)} on a scale from 0 to 1, in the ${bandWords(score)} band.`);
        const narrative = narratives.get(construct);
        if (narrative === undefined) {
          expect(item.attributes['aria-describedby']).toBeUndefined();
        } else {
          expect(textOf(byId(root, item.attributes['aria-describedby']!)!)).toBe(narrative);
        }
        // What is drawn says the same words again, so it is hidden from assistive technology.
        expect(rest.at(-1)!.attributes['aria-hidden']).toBe('true');
        expect(textOf(rest.at(-1)!)).toContain(`${score.toFixed(2)} · ${bandWords(score)}`);
      }
    }
    expect(profile.descriptions.natures.length + profile.descriptions.intelligences.length).toBe(6);
  });

  it('draws each bar on the 0..1 scale, ending within the shading of its band', () => {
    for (const theme of chartThemes) {
      const root = chart(theme, 960);
      for (const family of ['natures', 'intelligences'] as const) {
        for (const [construct, score] of Object.entries(profile[family])) {
          const rects = allElements(byId(root, `construct-${construct}`)!).filter((element) => element.name === 'rect');
          const [track, bar] = [rects.at(-1)!, rects.at(-2)!];
          const shades = rects.slice(0, -2);
          expect(shades.map((shade) => shade.attributes.fill)).toEqual(Object.values(palettes[theme].bands));
          const start = Number(bar.attributes.x);
          const full = Number(track.attributes.width) + 1;
          expect(Number(bar.attributes.width) / full).toBeCloseTo(score, 3);
          const end = start + Number(bar.attributes.width);
          const under = shades.find(
            (shade) => Number(shade.attributes.x) <= end && end <= Number(shade.attributes.x) + Number(shade.attributes.width) + 0.01,
          );
          expect(under?.attributes.fill, `${construct} at ${score}`).toBe(palettes[theme].bands[bandOf(score * 8 + 2)]);
        }
      }
    }
  });

  it('puts the narratives beside their bars where there is room, and under them on narrow charts', () => {
    const narrativeLines = (root: XmlElement, construct: Construct) => {
      const drawn = allElements(byId(root, `construct-${construct}`)!);
      const label = drawn.find((element) => element.name === 'text')!;
      const bar = drawn.filter((element) => element.name === 'rect').at(-1)!;
      const first = drawn.find((element) => element.name === 'text' && textOf(element).startsWith('Shows'))!;
      return { label, bar, first };
    };
    for (const width of [960, 1600]) {
      const { label, bar, first } = narrativeLines(chart('light', width), 'providing');
      expect(Number(first.attributes.x)).toBeGreaterThan(Number(bar.attributes.x) + Number(bar.attributes.width));
      expect(Math.abs(Number(first.attributes.y) - Number(label.attributes.y))).toBeLessThan(1);
    }
    for (const width of [320, 360, 800]) {
      const { label, bar, first } = narrativeLines(chart('light', width), 'providing');
      expect(first.attributes.x).toBe(label.attributes.x);
      expect(Number(first.attributes.y)).toBeGreaterThan(Number(bar.attributes.y) + Number(bar.attributes.height));
    }
  });

  it('keeps every line of text inside the chart and its padding, by the widths it estimates, at every width', () => {
    for (const width of WIDTHS) {
      const root = chart('light', width);
      const pad = width < 480 ? 16 : 32;
      for (const text of allElements(root).filter((element) => element.name === 'text')) {
        const size = Number(text.attributes['font-size']);
        const extent = textWidth(textOf(text), size, text.attributes['font-weight'] === 'bold' ? 'bold' : 'regular');
        const x = Number(text.attributes.x);
        const left = { middle: x - extent / 2, end: x - extent }[text.attributes['text-anchor'] ?? ''] ?? x;
        expect(left, `${width}: ${textOf(text)}`).toBeGreaterThanOrEqual(pad);
        expect(left + extent, `${width}: ${textOf(text)}`).toBeLessThanOrEqual(width - pad);
        expect(size).toBeGreaterThanOrEqual(12);
      }
    }
  });

  it('escapes what it writes: markup in a narrative is shown as text', () => {
    const hostile: ChartedProfile = {
      ...profile,
      descriptions: {
        ...profile.descriptions,
        natures: [{ construct: 'providing', text: 'A <script>alert("&amp;")</script> & \'more\'' }],
      },
    };
    const root = parseXml(renderProfileChart(hostile, { theme: 'light', width: 960 }));
    expect(textOf(byId(root, 'construct-providing-desc')!)).toBe('A <script>alert("&amp;")</script> & \'more\'');
    expect(allElements(root).some((element) => element.name === 'script')).toBe(false);
  });

  it('uses only its theme’s colours, text at 4.5:1 or more and bars at 3:1 or more against what they are drawn on (WCAG AA)', () => {
    for (const theme of chartThemes) {
      const palette = palettes[theme];
      expect(contrast(palette.ink, palette.background), `${theme} ink`).toBeGreaterThanOrEqual(4.5);
      expect(contrast(palette.muted, palette.background), `${theme} muted`).toBeGreaterThanOrEqual(4.5);
      expect(contrast(palette.edge, palette.background), `${theme} track outline`).toBeGreaterThanOrEqual(3);
      expect(contrast(palette.bar, palette.background), `${theme} bar`).toBeGreaterThanOrEqual(3);
      for (const [band, shade] of Object.entries(palette.bands)) {
        expect(contrast(palette.bar, shade), `${theme} bar on ${band}`).toBeGreaterThanOrEqual(3);
      }
      // The chart as drawn: every text is in a text colour on the background, every bar in the bar colour.
      const elements = allElements(chart(theme, 960));
      const background = elements.find((element) => element.name === 'rect')!.attributes.fill!;
      expect(background).toBe(palette.background);
      for (const text of elements.filter((element) => element.name === 'text')) {
        expect(contrast(text.attributes.fill!, background), textOf(text)).toBeGreaterThanOrEqual(4.5);
      }
      const colours = new Set(
        elements.flatMap((element) => [element.attributes.fill, element.attributes.stroke]).filter((colour) => colour),
      );
      expect([...colours].sort()).toEqual(
        [palette.background, palette.ink, palette.muted, palette.bar, palette.edge, 'none', ...Object.values(palette.bands)].sort(),
      );
    }
  });

  it('refuses a width outside 320..1600 px and a score outside 0..1', () => {
    for (const width of [CHART_WIDTHS.min - 1, CHART_WIDTHS.max + 1, 960.5, Number.NaN]) {
      expect(() => renderProfileChart(profile, { theme: 'light', width })).toThrow(RangeError);
    }
    expect(() => renderProfileChart({ ...profile, natures: { ...profile.natures, healing: 1.5 } }, { theme: 'light', width: 960 })).toThrow(
      /natures.healing is 1.5/,
    );
  });
});

describe('the profile chart of a French profile', () => {
  const french: ChartedProfile = { ...scores, language: 'fr', descriptions: describeScores(scores, 'fr') };
  const frenchChart = (width: number) => parseXml(renderProfileChart(french, { theme: 'light', width }));
  const collator = new Intl.Collator('fr');

  it('is in French: lang="fr", its title, headings, labels in French alphabetical order, scores with a decimal comma and bands in words', () => {
    const root = frenchChart(960);
    expect(root.attributes.lang).toBe('fr');
    expect(textOf(byId(root, 'profile-chart-title')!)).toBe('Profil Nature');
    expect(textOf(byId(root, 'profile-chart-desc')!)).toContain('(v1-fr)');
    for (const family of ['natures', 'intelligences'] as const) {
      const panel = byId(root, family)!;
      const items = allElements(panel).filter((element) => element.attributes.role === 'listitem');
      const labels = items.map((item) => textOf(allElements(item).find((element) => element.attributes['font-weight'] === 'bold')!));
      expect(labels).toEqual([...labels].sort(collator.compare));
      for (const item of items) {
        const construct = item.attributes.id!.replace('construct-', '') as Construct;
        const score = french[family][construct]!;
        const band = chartWords.fr.bands[bandOf(score * 8 + 2)];
        expect(textOf(children(item)[0]!)).toBe(
          `${chartWords.fr.labels[construct]}\u00a0: ${score.toFixed(2).replace('.', ',')} sur une échelle de 0 à 1, niveau ${band}.`,
        );
      }
    }
    // Éducative sorts among the E's in French, not after Z as code points would put it.
    const natureLabels = allElements(byId(root, 'natures')!)
      .filter((element) => element.attributes.role === 'listitem')
      .map((item) => item.attributes.id);
    expect(natureLabels.indexOf('construct-educative')).toBeLessThan(natureLabels.indexOf('construct-entrepreneurial'));
    const descriptions = allElements(root).filter((element) => element.name === 'desc' && element.attributes.id !== 'profile-chart-desc');
    expect(descriptions.map(textOf)).toEqual(
      expect.arrayContaining([...french.descriptions.natures, ...french.descriptions.intelligences].map(({ text }) => text)),
    );
  });

  it('says nothing in English', () => {
    const text = allElements(frenchChart(1600))
      .filter((element) => ['text', 'title', 'desc'].includes(element.name))
      .map(textOf)
      .join(' ');
    expect(text).not.toMatch(/\b(the|and|of|on|in|scale|band|low|high|medium|very|shows|profile|Bodily|Visual)\b/i);
    expect(text).not.toMatch(/\d\.\d/);
  });

  it('keeps every line of its longer words inside the chart and its padding, by the widths it estimates, at every width', () => {
    for (const width of WIDTHS) {
      const pad = width < 480 ? 16 : 32;
      for (const text of allElements(frenchChart(width)).filter((element) => element.name === 'text')) {
        const extent = textWidth(
          textOf(text),
          Number(text.attributes['font-size']),
          text.attributes['font-weight'] === 'bold' ? 'bold' : 'regular',
        );
        const x = Number(text.attributes.x);
        const left = { middle: x - extent / 2, end: x - extent }[text.attributes['text-anchor'] ?? ''] ?? x;
        expect(left, `${width}: ${textOf(text)}`).toBeGreaterThanOrEqual(pad);
        expect(left + extent, `${width}: ${textOf(text)}`).toBeLessThanOrEqual(width - pad);
      }
    }
  });

  it('measures an accented letter as its base letter and a no-break space as a space', () => {
    expect(textWidth('Éducative', 14, 'bold')).toBe(textWidth('Educative', 14, 'bold'));
    expect(textWidth('élevé', 13, 'regular')).toBe(textWidth('eleve', 13, 'regular'));
    expect(textWidth('a\u00a0:', 13, 'regular')).toBe(textWidth('a :', 13, 'regular'));
  });
});
