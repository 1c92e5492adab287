/** The 9 Natures and 10 Intelligences, alphabetical: the order every output uses. */
export const natures = [
  'administrative',
  'adventurous',
  'creative',
  'educative',
  'entertaining',
  'entrepreneurial',
  'healing',
  'protective',
  'providing',
] as const;

export const intelligences = [
  'bodily_fine_motor',
  'bodily_gross_motor',
  'interpersonal',
  'intrapersonal',
  'linguistic',
  'logical',
  'musical',
  'naturalistic',
  'visual_graphic',
  'visual_spatial',
] as const;

export type Nature = (typeof natures)[number];
export type Intelligence = (typeof intelligences)[number];
export type Construct = Nature | Intelligence;

/** All 19: the natures, then the intelligences. */
export const constructs: readonly Construct[] = [...natures, ...intelligences];
export type Family = 'natures' | 'intelligences';

/** Tie-break order of the contract when choosing which constructs get a narrative. Never an output order. */
export const canonicalOrder: { natures: readonly Nature[]; intelligences: readonly Intelligence[] } = {
  natures: [
    'protective',
    'educative',
    'administrative',
    'creative',
    'healing',
    'entertaining',
    'providing',
    'entrepreneurial',
    'adventurous',
  ],
  intelligences: [
    'bodily_gross_motor',
    'bodily_fine_motor',
    'interpersonal',
    'logical',
    'linguistic',
    'visual_graphic',
    'visual_spatial',
    'musical',
    'intrapersonal',
    'naturalistic',
  ],
};
