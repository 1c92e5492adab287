import type { Construct } from '../scoring/constructs.js';

/** What a person reads for each construct: its name in words, the kind of a two-part Intelligence after a comma. */
export const constructLabels: Readonly<Record<Construct, string>> = {
  administrative: 'Administrative',
  adventurous: 'Adventurous',
  creative: 'Creative',
  educative: 'Educative',
  entertaining: 'Entertaining',
  entrepreneurial: 'Entrepreneurial',
  healing: 'Healing',
  protective: 'Protective',
  providing: 'Providing',
  bodily_fine_motor: 'Bodily, fine motor',
  bodily_gross_motor: 'Bodily, gross motor',
  interpersonal: 'Interpersonal',
  intrapersonal: 'Intrapersonal',
  linguistic: 'Linguistic',
  logical: 'Logical',
  musical: 'Musical',
  naturalistic: 'Naturalistic',
  visual_graphic: 'Visual, graphic',
  visual_spatial: 'Visual, spatial',
};
