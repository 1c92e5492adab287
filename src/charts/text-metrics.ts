/**
 * Text widths estimated without a font engine, so the chart wraps its text on the server, the same way every time:
 * the advance widths of DejaVu Sans, the first family the chart names (Verdana, the second, has nearly the same
 * metrics), in thousandths of an em, for the printable ASCII characters (space to tilde). An accented letter counts as
 * its base letter, any other character a whole em, and kerning is ignored: an estimate errs wide, so a line never
 * overruns its column, and a narrower fallback font only leaves more room.
 */
const ADVANCES: Record<Weight, readonly number[]> = {
  regular: [
    318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337, 636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337,
    337, 838, 838, 838, 531, 1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787, 603, 787, 695, 635, 611, 732,
    684, 989, 685, 611, 685, 390, 337, 390, 838, 500, 500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612, 635,
    635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
  ],
  bold: [
    348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365, 696, 696, 696, 696, 696, 696, 696, 696, 696, 696, 400,
    400, 838, 838, 838, 580, 1000, 774, 762, 734, 830, 683, 683, 821, 837, 372, 372, 775, 637, 995, 837, 850, 733, 850, 770, 720, 682, 812,
    774, 1103, 771, 724, 725, 457, 365, 457, 838, 500, 500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687, 716,
    716, 493, 595, 478, 712, 652, 924, 645, 652, 582, 712, 365, 712, 838,
  ],
};
const FIRST_PRINTABLE = 32;
const UNKNOWN_ADVANCE = 1000;

export type Weight = 'regular' | 'bold';

/** No-break spaces (French puts one before a colon) are as wide as a space. */
const NO_BREAK_SPACES = /[\u00a0\u202f]/g;

/**
 * The width in px of `text` set at `size` px. An accented Latin letter is as wide as its base letter in DejaVu
 * Sans (é as e, À as A), so it is measured as the letter its canonical decomposition starts with.
 */
export function textWidth(text: string, size: number, weight: Weight): number {
  let thousandths = 0;
  for (const char of text.replace(NO_BREAK_SPACES, ' ')) {
    const base = char.codePointAt(0)! < 0x80 ? char : char.normalize('NFD')[0]!;
    thousandths += ADVANCES[weight][base.codePointAt(0)! - FIRST_PRINTABLE] ?? UNKNOWN_ADVANCE;
  }
  return (thousandths * size) / 1000;
}

/**
 * `text` in lines no wider than `maxWidth`: words are filled greedily, and a word wider than a whole line (none of
 * the chart's own) is cut where it must be rather than left to overrun.
 */
export function wrapText(text: string, maxWidth: number, size: number, weight: Weight): string[] {
  const fits = (line: string) => textWidth(line, size, weight) <= maxWidth;
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ').filter((part) => part !== '')) {
    const joined = line === '' ? word : `${line} ${word}`;
    if (fits(joined)) {
      line = joined;
      continue;
    }
    if (line !== '') lines.push(line);
    line = '';
    for (const char of word) {
      if (line !== '' && !fits(line + char)) {
        lines.push(line);
        line = '';
      }
      line += char;
    }
  }
  return [...lines, line];
}
