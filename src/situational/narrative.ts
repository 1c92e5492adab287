import { type Construct, type Intelligence, type Nature, natures } from '../scoring/constructs.js';
import type { Language } from '../scoring/languages.js';
import { intelligenceAdjectives, natureAdjectives } from '../scoring/narratives-v1-fr.js';
import { compareCodeUnits } from '../support/code-units.js';
import type { Alignment } from './alignment.js';

/**
 * The narrative of a situational result, 3 to 5 sentences from templates: what the situation draws on most, then for
 * each of those constructs (in the alphabetical order of their ids, in both languages) how the profile meets it, then
 * the overall alignment. It describes the fit
 * between a profile and a situation in words of degree, never numbers, and never orders the person's own constructs.
 */

type Degree = 'full' | 'most' | 'part';

/** Alignments of 0.9 and above meet a demand in full, 0.7 and above mostly, below that in part. */
const degreeOf = (alignment: number): Degree => (alignment >= 0.9 ? 'full' : alignment >= 0.7 ? 'most' : 'part');

const isNature = (construct: Construct): construct is Nature => (natures as readonly string[]).includes(construct);

interface Templates {
  name(construct: Construct): string;
  list(names: readonly string[]): string;
  drawsOn(list: string): string;
  meets(name: string, degree: Degree): string;
  overall(degree: Degree): string;
}

const english: Templates = {
  name: (construct) => (isNature(construct) ? `the ${construct} nature` : `${construct.replaceAll('_', ' ')} intelligence`),
  list: (names) => (names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} and ${names.at(-1)!}`),
  drawsOn: (list) => `This situation draws most on ${list}.`,
  meets: (name, degree) => {
    const how = { full: 'meets in full', most: 'meets most of', part: 'meets part of' }[degree];
    return `${capitalised(name)}: the profile ${how} what the situation asks.`;
  },
  overall: (degree) =>
    `Overall, the profile is ${{ full: 'closely', most: 'largely', part: 'partly' }[degree]} aligned with this situation.`,
};

/** French typography puts a non-breaking space before a colon. */
const COLON = '\u00a0:';

const french: Templates = {
  name: (construct) =>
    isNature(construct)
      ? `la nature ${natureAdjectives[construct]}`
      : `l'intelligence ${intelligenceAdjectives[construct as Intelligence]}`,
  // "à" before each: "à la nature soignante et à l'intelligence musicale".
  list: (names) => {
    const each = names.map((name) => `à ${name}`);
    return each.length === 1 ? each[0]! : `${each.slice(0, -1).join(', ')} et ${each.at(-1)!}`;
  },
  drawsOn: (list) => `Cette situation fait surtout appel ${list}.`,
  meets: (name, degree) => {
    const how = { full: 'pleinement', most: 'en grande partie', part: 'en partie' }[degree];
    return `${capitalised(name)}${COLON} le profil répond ${how} à ce que la situation demande.`;
  },
  overall: (degree) =>
    `Dans l'ensemble, le profil est ${{ full: 'tout à fait', most: 'largement', part: 'en partie' }[degree]} en phase avec cette situation.`,
};

const templates: Record<Language, Templates> = { en: english, fr: french };

const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** `drawsOnMost`: the constructs the situation draws on most (one to three); told in their ids' alphabetical order. */
export function situationalNarrative(drawsOnMost: readonly Construct[], alignment: Alignment, language: Language): string {
  if (drawsOnMost.length === 0) throw new RangeError('a narrative needs at least one construct the situation draws on');
  const t = templates[language];
  const told = [...drawsOnMost].sort(compareCodeUnits);
  return [
    t.drawsOn(t.list(told.map((construct) => t.name(construct)))),
    ...told.map((construct) => t.meets(t.name(construct), degreeOf(alignment.constructs[construct]))),
    t.overall(degreeOf(alignment.overall)),
  ].join(' ');
}
