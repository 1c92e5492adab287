import type { Construct, Family } from '../scoring/constructs.js';
import type { Language } from '../scoring/languages.js';
import type { Band } from '../scoring/narratives-v1.js';

/** Everything the chart says, in one language: it is drawn in its profile's language. */
export interface ChartWords {
  /** What a person reads for each construct: its name in words, the kind of a two-part Intelligence after a comma. */
  labels: Readonly<Record<Construct, string>>;
  headings: Readonly<Record<Family, string>>;
  bands: Readonly<Record<Band, string>>;
  title: string;
  lead: string;
  /** A score (0..1) or a tick of the scale, with the language's decimal separator. */
  number: (value: number, digits: number) => string;
  /** A construct's text alternative. */
  rowTitle: (label: string, score: string, band: string) => string;
  description: (scoringVersion: string, narrativesVersion: string) => string;
}

const english: ChartWords = {
  labels: {
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
  },
  headings: { natures: 'Natures', intelligences: 'Intelligences' },
  bands: { low: 'low', medium_low: 'medium low', medium: 'medium', medium_high: 'medium high', high: 'high', very_high: 'very high' },
  title: 'Nature profile',
  lead: '9 Natures and 10 Intelligences in alphabetical order. Each bar is a score from 0 to 1, on a track shaded by band from low to very high.',
  number: (value, digits) => value.toFixed(digits),
  rowTitle: (label, score, band) => `${label}: ${score} on a scale from 0 to 1, in the ${band} band.`,
  description: (scoringVersion, narrativesVersion) =>
    `A bar chart of a profile scored with ${scoringVersion}: 9 Natures and 10 Intelligences in alphabetical order, ` +
    'each a score from 0 to 1 with its band (low, medium low, medium, medium high, high or very high), ' +
    `and the narrative (${narrativesVersion}) of each construct that has one.`,
};

/** French typography: a non-breaking space before a colon. */
const COLON = '\u00a0:';

const french: ChartWords = {
  labels: {
    administrative: 'Administrative',
    adventurous: 'Aventureuse',
    creative: 'Créative',
    educative: 'Éducative',
    entertaining: 'Divertissante',
    entrepreneurial: 'Entreprenante',
    healing: 'Soignante',
    protective: 'Protectrice',
    providing: 'Nourricière',
    bodily_fine_motor: 'Corporelle, motricité fine',
    bodily_gross_motor: 'Corporelle, motricité globale',
    interpersonal: 'Interpersonnelle',
    intrapersonal: 'Intrapersonnelle',
    linguistic: 'Linguistique',
    logical: 'Logique',
    musical: 'Musicale',
    naturalistic: 'Naturaliste',
    visual_graphic: 'Visuelle, graphique',
    visual_spatial: 'Visuelle, spatiale',
  },
  headings: { natures: 'Natures', intelligences: 'Intelligences' },
  bands: {
    low: 'faible',
    medium_low: 'plutôt faible',
    medium: 'moyen',
    medium_high: 'plutôt élevé',
    high: 'élevé',
    very_high: 'très élevé',
  },
  title: 'Profil Nature',
  lead: "9 Natures et 10 Intelligences dans l'ordre alphabétique. Chaque barre est un score de 0 à 1, sur une piste teintée par niveau, de faible à très élevé.",
  number: (value, digits) => value.toFixed(digits).replace('.', ','),
  rowTitle: (label, score, band) => `${label}${COLON} ${score} sur une échelle de 0 à 1, niveau ${band}.`,
  description: (scoringVersion, narrativesVersion) =>
    `Diagramme en barres d'un profil calculé avec ${scoringVersion}${COLON} 9 Natures et 10 Intelligences dans l'ordre alphabétique, ` +
    'chacune avec un score de 0 à 1 et son niveau (faible, plutôt faible, moyen, plutôt élevé, élevé ou très élevé), ' +
    `et la phrase descriptive (${narrativesVersion}) de chacune de celles qui en ont une.`,
};

export const chartWords: Readonly<Record<Language, ChartWords>> = { en: english, fr: french };
