import type { Construct, Family, Intelligence, Nature } from './constructs.js';

export const NARRATIVE_VERSION = 'v1';

/** Bands of the raw score (2.0..10.0 in steps of 0.5), as the contract names them. */
export type Band = 'low' | 'medium_low' | 'medium' | 'medium_high' | 'high' | 'very_high';

export function bandOf(raw: number): Band {
  if (raw <= 3) return 'low';
  if (raw <= 4.5) return 'medium_low';
  if (raw <= 6) return 'medium';
  if (raw <= 7.5) return 'medium_high';
  if (raw <= 8.5) return 'high';
  return 'very_high';
}

/** Only raw ≥ 7 gets a narrative, so only these bands have words. Level words, never numbers. */
const levelWords: Partial<Record<Band, string>> = {
  medium_high: 'a clear',
  high: 'a strong',
  very_high: 'a very strong',
};

const natureClauses: Record<Nature, string> = {
  administrative: 'drawn to bringing order, structure and reliable processes to shared work',
  adventurous: 'drawn to exploration, new experiences and challenges that test courage',
  creative: 'drawn to imagining and making things that did not exist before',
  educative: 'drawn to helping others learn, grow and understand',
  entertaining: 'drawn to bringing energy, humour and enjoyment to other people',
  entrepreneurial: 'drawn to spotting opportunities and building new ventures',
  healing: 'drawn to caring for people and restoring their wellbeing',
  protective: 'drawn to keeping people safe and standing up for what is fair',
  providing: 'drawn to making sure others have what they need',
};

const intelligenceClauses: Record<Intelligence, string> = {
  bodily_fine_motor: 'precise, skilful work with the hands',
  bodily_gross_motor: 'coordinated movement and physical skill with the whole body',
  interpersonal: 'reading other people and working well with them',
  intrapersonal: 'self-knowledge, reflection and self-direction',
  linguistic: 'words, reading and clear expression',
  logical: 'reasoning, patterns and step-by-step problem solving',
  musical: 'rhythm, pitch and melody',
  naturalistic: 'noticing and understanding the natural world',
  visual_graphic: 'drawing, colour and visual design',
  visual_spatial: 'picturing space, shapes and the way around places',
};

/** One English sentence, from the construct and band only: the same inputs always give the same text. */
export function narrative(family: Family, construct: Construct, band: Band): string {
  const level = levelWords[band];
  if (level === undefined) throw new Error(`no narrative below the medium_high band (${construct}: ${band})`);
  if (family === 'natures') {
    return `Shows ${level} ${construct} nature: ${natureClauses[construct as Nature]}.`;
  }
  return `Shows ${level} ${construct.replaceAll('_', ' ')} intelligence: a capacity for ${intelligenceClauses[construct as Intelligence]}.`;
}
