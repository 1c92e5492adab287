import { items } from '../../src/scoring/item-bank.js';

/**
 * A known answer pattern: each construct's four answers (in item order), with the profile worked out
 * by hand from the contract's rules: raw = sum / 2, score = (raw − 2) / 8.
 */
const pattern: Record<string, [number, number, number, number]> = {
  administrative: [5, 5, 4, 4], // raw 9   → 0.875, very_high
  adventurous: [1, 1, 1, 1], //    raw 2   → 0
  creative: [4, 4, 4, 4], //       raw 8   → 0.75 (tied at 8, loses the tie-break)
  educative: [4, 4, 4, 4], //      raw 8   → 0.75 (tied at 8, loses the tie-break)
  entertaining: [2, 3, 2, 3], //   raw 5   → 0.375
  entrepreneurial: [3, 3, 3, 3], // raw 6  → 0.5
  healing: [4, 4, 3, 3], //        raw 7   → 0.625 (qualifies, but not in the top 3)
  protective: [4, 4, 4, 4], //     raw 8   → 0.75, high (first of the 8s in canonical order)
  providing: [5, 5, 5, 5], //      raw 10  → 1, very_high
  bodily_fine_motor: [4, 3, 4, 3], //  raw 7   → 0.625 (tied at 7, loses the tie-break)
  bodily_gross_motor: [4, 3, 4, 3], // raw 7   → 0.625, medium_high (first of the 7s)
  interpersonal: [2, 2, 2, 2], //      raw 4   → 0.25
  intrapersonal: [4, 4, 3, 4], //      raw 7.5 → 0.6875, medium_high
  linguistic: [1, 2, 1, 2], //         raw 3   → 0.125
  logical: [3, 4, 3, 3], //            raw 6.5 → 0.5625 (just under the threshold)
  musical: [5, 4, 5, 4], //            raw 9   → 0.875, very_high
  naturalistic: [4, 3, 4, 3], //       raw 7   → 0.625 (tied at 7, loses the tie-break)
  visual_graphic: [1, 1, 2, 1], //     raw 2.5 → 0.0625
  visual_spatial: [3, 3, 3, 2], //     raw 5.5 → 0.4375
};

/** The 76 responses of the pattern, in item order. */
export const knownResponses = items.map((item, index) => ({
  item_id: item.id,
  value: pattern[item.construct]![Math.floor(index / 19)]!,
}));

export const knownProfileV1 = {
  scoring_version: 'mn76-v1',
  language: 'en',
  natures: {
    administrative: 0.875,
    adventurous: 0,
    creative: 0.75,
    educative: 0.75,
    entertaining: 0.375,
    entrepreneurial: 0.5,
    healing: 0.625,
    protective: 0.75,
    providing: 1,
  },
  intelligences: {
    bodily_fine_motor: 0.625,
    bodily_gross_motor: 0.625,
    interpersonal: 0.25,
    intrapersonal: 0.6875,
    linguistic: 0.125,
    logical: 0.5625,
    musical: 0.875,
    naturalistic: 0.625,
    visual_graphic: 0.0625,
    visual_spatial: 0.4375,
  },
  descriptions: {
    version: 'v1',
    natures: [
      {
        construct: 'administrative',
        band: 'very_high',
        text: 'Shows a very strong administrative nature: drawn to bringing order, structure and reliable processes to shared work.',
      },
      {
        construct: 'protective',
        band: 'high',
        text: 'Shows a strong protective nature: drawn to keeping people safe and standing up for what is fair.',
      },
      {
        construct: 'providing',
        band: 'very_high',
        text: 'Shows a very strong providing nature: drawn to making sure others have what they need.',
      },
    ],
    intelligences: [
      {
        construct: 'bodily_gross_motor',
        band: 'medium_high',
        text: 'Shows a clear bodily gross motor intelligence: a capacity for coordinated movement and physical skill with the whole body.',
      },
      {
        construct: 'intrapersonal',
        band: 'medium_high',
        text: 'Shows a clear intrapersonal intelligence: a capacity for self-knowledge, reflection and self-direction.',
      },
      {
        construct: 'musical',
        band: 'very_high',
        text: 'Shows a very strong musical intelligence: a capacity for rhythm, pitch and melody.',
      },
    ],
  },
};

/**
 * The same answers under mn76-v2, which keys mn_056 (answered 2) to visual_spatial and mn_057 (answered 3)
 * to visual_graphic: visual_graphic 1+1+3+1 → raw 3 → 0.125; visual_spatial 3+3+2+2 → raw 5 → 0.375. No
 * narrative changes (both stay under 7). This is what a server scores by default (the newest version).
 */
export const knownProfile = {
  ...knownProfileV1,
  scoring_version: 'mn76-v2',
  intelligences: { ...knownProfileV1.intelligences, visual_graphic: 0.125, visual_spatial: 0.375 },
};

/** The responses in `count` batches of equal size (76 = 4 × 19). */
export function batches(count: number) {
  const size = knownResponses.length / count;
  return Array.from({ length: count }, (_, i) => knownResponses.slice(i * size, (i + 1) * size));
}
