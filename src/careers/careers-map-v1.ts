import type { Family } from '../scoring/constructs.js';

// STAND-IN for helper 1's mapping table (issue 43, MAPPING part): the same exported shape with two rows, so
// /docs/careers renders it before the real table lands. The merge keeps the owner's file.

export const careersMapVersion = 'careers-map-v1';

export type DescriptorSource = 'interest' | 'workStyle' | 'workValue' | 'skill' | 'activity' | 'jobZone';

export interface MapTerm {
  source: DescriptorSource;
  id: string;
  label: string;
  weight: number;
  reason: string;
}

export interface MapRow {
  construct: string;
  family: Family;
  terms: readonly MapTerm[];
  standIn: string;
}

export const careersMapV1: readonly MapRow[] = [
  {
    construct: 'healing',
    family: 'natures',
    standIn: 'direct',
    terms: [
      {
        source: 'activity',
        id: '4.A.4.a.5',
        label: 'Assisting and Caring for Others',
        weight: 1,
        reason: 'caring for people is healing work',
      },
    ],
  },
  {
    construct: 'musical',
    family: 'intelligences',
    standIn: 'Artistic interest stands in: it covers music among the arts',
    terms: [{ source: 'interest', id: '1.B.1.c', label: 'Artistic', weight: 1, reason: 'the nearest descriptor the subset has' }],
  },
];
