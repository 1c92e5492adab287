import { describe, expect, it } from 'vitest';
import { textWidth, wrapText } from '../../src/charts/text-metrics.js';

describe("the chart's text metrics", () => {
  it('estimates widths from DejaVu Sans advances, bold wider, an accented letter as its base letter, anything else beyond ASCII a whole em', () => {
    // DejaVu Sans: i 0.278 em, W 0.989 em; bold i 0.343 em.
    expect(textWidth('iW', 10, 'regular')).toBeCloseTo(12.67, 2);
    expect(textWidth('i', 1000, 'bold')).toBe(343);
    expect(textWidth('Visual, graphic', 10, 'bold')).toBeGreaterThan(textWidth('Visual, graphic', 10, 'regular'));
    // é as e (0.615 em), · a whole em.
    expect(textWidth('é·', 1000, 'regular')).toBe(615 + 1000);
    expect(textWidth('', 13, 'regular')).toBe(0);
  });

  it('fills lines word by word, none wider than asked, and cuts a word wider than a whole line', () => {
    const text =
      'Shows a clear bodily gross motor intelligence: a capacity for coordinated movement and physical skill with the whole body.';
    const lines = wrapText(text, 200, 13, 'regular');
    expect(lines.join(' ')).toBe(text);
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(textWidth(line, 13, 'regular')).toBeLessThanOrEqual(200);
    // Each line but the last is full: its next word would not have fitted.
    for (const [index, line] of lines.slice(0, -1).entries()) {
      expect(textWidth(`${line} ${lines[index + 1]!.split(' ')[0]}`, 13, 'regular')).toBeGreaterThan(200);
    }
    const word = 'Pneumonoultramicroscopicsilicovolcanoconiosis';
    const cut = wrapText(`a ${word} b`, 100, 13, 'regular');
    expect(cut[0]).toBe('a');
    expect(cut.slice(1).join('')).toBe(`${word} b`);
    expect(cut.length).toBeGreaterThan(3);
    for (const line of cut) expect(textWidth(line, 13, 'regular')).toBeLessThanOrEqual(100);
  });
});
