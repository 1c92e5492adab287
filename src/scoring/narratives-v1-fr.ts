import type { Construct, Family, Intelligence, Nature } from './constructs.js';
import type { Band } from './narratives-v1.js';

/** The French narratives: the English ones' rules and meaning (narratives-v1.ts), in French's own words. */
export const FRENCH_NARRATIVE_VERSION = 'v1-fr';

/** French typography puts a non-breaking space before a colon, so the colon never starts a line. */
const COLON = '\u00a0:';

/**
 * "Nature" and "intelligence" are feminine, so the adjectives below agree with them, never with the person;
 * "a clear" reads best after the noun in French ("une nature créative affirmée"), "strong" before it. The sentence
 * is this noun phrase, not "Montre …": without a subject, French reads that verb as an order.
 */
const levelOf: Partial<Record<Band, (noun: string) => string>> = {
  medium_high: (noun) => `Une ${noun} affirmée`,
  high: (noun) => `Une forte ${noun}`,
  very_high: (noun) => `Une très forte ${noun}`,
};

export const natureAdjectives: Record<Nature, string> = {
  administrative: 'administrative',
  adventurous: 'aventureuse',
  creative: 'créative',
  educative: 'éducative',
  entertaining: 'divertissante',
  entrepreneurial: 'entreprenante',
  healing: 'soignante',
  protective: 'protectrice',
  providing: 'nourricière',
};

/** What draws the person, as "le goût de …": a noun, so nothing agrees with the person's gender. */
const natureClauses: Record<Nature, string> = {
  administrative: "le goût d'apporter de l'ordre, de la structure et des méthodes fiables au travail collectif",
  adventurous: "le goût de l'exploration, des expériences nouvelles et des défis qui mettent le courage à l'épreuve",
  creative: "le goût d'imaginer et de créer ce qui n'existait pas encore",
  educative: "le goût d'aider les autres à apprendre, à grandir et à comprendre",
  entertaining: "le goût d'apporter aux autres de l'énergie, de l'humour et du plaisir",
  entrepreneurial: 'le goût de repérer des occasions et de lancer de nouveaux projets',
  healing: 'le goût de prendre soin des personnes et de leur rendre le bien-être',
  protective: 'le goût de protéger les personnes et de défendre ce qui est juste',
  providing: "le goût de veiller à ce que les autres aient ce qu'il leur faut",
};

export const intelligenceAdjectives: Record<Intelligence, string> = {
  bodily_fine_motor: 'corporelle (motricité fine)',
  bodily_gross_motor: 'corporelle (motricité globale)',
  interpersonal: 'interpersonnelle',
  intrapersonal: 'intrapersonnelle',
  linguistic: 'linguistique',
  logical: 'logique',
  musical: 'musicale',
  naturalistic: 'naturaliste',
  visual_graphic: 'visuelle et graphique',
  visual_spatial: 'visuelle et spatiale',
};

/** What the capacity is for, after "une aptitude": each clause brings the preposition its words take. */
const intelligenceClauses: Record<Intelligence, string> = {
  bodily_fine_motor: 'pour le travail manuel précis et habile',
  bodily_gross_motor: "pour le mouvement coordonné et l'adresse physique de tout le corps",
  interpersonal: 'à comprendre les autres et à bien travailler en équipe',
  intrapersonal: "pour la connaissance de soi, la réflexion et l'autonomie",
  linguistic: "pour les mots, la lecture et l'expression claire",
  logical: 'pour le raisonnement, les régularités et la résolution de problèmes pas à pas',
  musical: 'pour le rythme, la justesse et la mélodie',
  naturalistic: 'à observer et à comprendre le monde naturel',
  visual_graphic: 'pour le dessin, la couleur et la conception visuelle',
  visual_spatial: "à se représenter l'espace, les formes et les trajets",
};

/** One French sentence, from the construct and band only: the same inputs always give the same text. */
export function frenchNarrative(family: Family, construct: Construct, band: Band): string {
  const level = levelOf[band];
  if (level === undefined) throw new Error(`no narrative below the medium_high band (${construct}: ${band})`);
  if (family === 'natures') {
    const nature = construct as Nature;
    return `${level(`nature ${natureAdjectives[nature]}`)}${COLON} ${natureClauses[nature]}.`;
  }
  const intelligence = construct as Intelligence;
  return `${level(`intelligence ${intelligenceAdjectives[intelligence]}`)}${COLON} une aptitude ${intelligenceClauses[intelligence]}.`;
}
