// Everything the element says, one catalogue per language: typed alike, so a language cannot lack a message.
// Free of DOM types, so the unit tests run it under Node. French follows French typography: a non-breaking space
// (\u00a0) before : ; ? ! and between a number and its unit; the plain apostrophe, as in the item bank.

import { NETWORK_MESSAGE } from './api.js';
import type { Language } from './language.js';

export interface Words {
  /** Shown until the items are. */
  loading: string;
  /** The progress bar's name, for screen readers. */
  progressLabel: string;
  /** The progress line above the items. */
  progress: (answered: number, total: number) => string;
  /** In the single layout: which statement is shown (announced to screen readers as it changes). */
  position: (n: number, total: number) => string;
  /** In the single layout: the buttons to the statement before and after. */
  back: string;
  next: string;
  /** Under an item answered on another visit or browser, whose value this page does not know (no radio is checked). */
  answeredElsewhere: string;
  /** The ending's heading, once all 76 answers are in. */
  done: string;
  /** The heading of the person's result, where the caller lets them see it. */
  resultHeading: string;
  /** When the result could not be shown in time: the caller will tell the person. */
  resultElsewhere: string;
  /** The countdown beside a failure the element retries by itself; 0 while the retry is under way. */
  retrying: (seconds: number) => string;
  /** Beside a failure the element has given up on: what the site owner quotes when asking for help. */
  reference: (code: string, requestId: string | null) => string;
  /** The element lacks one of its required attributes. */
  missingAttribute: (name: string) => string;
  /** No answer at all from the API. */
  network: string;
  /** 429: the element waits and tries again. */
  busy: string;
  /** 5xx: the element waits and tries again. */
  unavailable: string;
  /** 401: the key or the secret was refused; for the site owner. */
  unauthenticated: string;
  /** 403 naming the scope the key lacks; for the site owner. */
  missingScope: (scope: string) => string;
  /** 403 without a scope: the key may not be used on the page's origin; for the site owner. */
  originRefused: (origin: string) => string;
  /** 404: the ids or the key's environment do not match; for the site owner. */
  notFound: string;
  /** The assessment no longer takes answers (`status`: abandoned, expired); `apiDetail` is the API's English sentence for it. */
  notOpen: (status: string, apiDetail: string) => string;
  /** Any other refusal (the reference code is shown beside it); `apiDetail` is the API's own explanation, in English. */
  refused: (apiDetail: string) => string;
}

const en: Words = {
  loading: 'Loading the questions…',
  progressLabel: 'Assessment progress',
  progress: (answered, total) => `${answered} of ${total} answered`,
  position: (n, total) => `Statement ${n} of ${total}`,
  back: 'Back',
  next: 'Next',
  answeredElsewhere: 'Answered earlier. Choose again to change your answer.',
  done: 'Thank you: all 76 answers are in.',
  resultHeading: 'Your result',
  resultElsewhere: 'Your result is not ready yet. It will reach you another way.',
  retrying: (seconds) => (seconds > 0 ? `Retrying in ${seconds} s…` : 'Retrying now…'),
  reference: (code, requestId) => `Error code ${code}${requestId === null ? '' : `, request ${requestId}`}.`,
  missingAttribute: (name) => `The <nature-assessment> element needs its ${name} attribute.`,
  network: NETWORK_MESSAGE,
  busy: 'The Nature Profile API is busy just now.',
  unavailable: 'The Nature Profile API could not answer just now.',
  unauthenticated:
    "The Nature Profile API refused this page's publishable key or client secret. The site owner must give the page a current " +
    'publishable key (a revoked or rotated key no longer works) and the client secret of this assessment.',
  missingScope: (scope) =>
    `The Nature Profile API refused this page: its publishable key lacks the ${scope} scope. ` +
    'The site owner must give the page a publishable key with that scope.',
  originRefused: (origin) =>
    `The Nature Profile API refused this page: its publishable key may not be used on ${origin}. ` +
    'The site owner must give the page a publishable key that allows this origin.',
  notFound:
    'The Nature Profile API does not know this assessment. The site owner must check the subject-id and assessment-id of the ' +
    'page, and that its publishable key is of the same environment (test or live) as the assessment.',
  // The API's English is already plain words for these.
  notOpen: (_status, apiDetail) => apiDetail,
  refused: (apiDetail) => apiDetail,
};

// Gender-neutral without "·e" forms: "la personne qui gère le site", never "le ou la responsable".
const fr: Words = {
  loading: 'Chargement des questions…',
  progressLabel: "Progression de l'évaluation",
  // French counts 0 and 1 in the singular.
  progress: (answered, total) => `${answered} ${answered < 2 ? 'réponse' : 'réponses'} sur ${total}`,
  position: (n, total) => `Énoncé ${n} sur ${total}`,
  back: 'Précédent',
  next: 'Suivant',
  answeredElsewhere: 'Réponse déjà donnée. Choisissez de nouveau pour la modifier.',
  done: 'Merci\u00a0: vos 76 réponses sont enregistrées.',
  resultHeading: 'Votre résultat',
  resultElsewhere: "Votre résultat n'est pas encore prêt. Il vous parviendra par un autre moyen.",
  retrying: (seconds) => (seconds > 0 ? `Nouvel essai dans ${seconds}\u00a0s…` : 'Nouvel essai en cours…'),
  reference: (code, requestId) => `Code d'erreur ${code}${requestId === null ? '' : `, requête ${requestId}`}.`,
  missingAttribute: (name) => `L'attribut ${name} de l'élément <nature-assessment> est manquant.`,
  network: 'Impossible de joindre le service Nature Profile API. Vérifiez votre connexion à Internet.',
  busy: 'Le service Nature Profile API est très sollicité en ce moment.',
  unavailable: "Le service Nature Profile API n'a pas pu répondre pour le moment.",
  unauthenticated:
    'Le service Nature Profile API a refusé la clé publiable ou le secret client de cette page. La personne qui gère le site doit ' +
    'donner à la page une clé publiable en vigueur (une clé révoquée ou remplacée ne fonctionne plus) et le secret client de cette évaluation.',
  missingScope: (scope) =>
    `Le service Nature Profile API a refusé cette page\u00a0: sa clé publiable n'a pas la portée ${scope}. ` +
    'La personne qui gère le site doit donner à la page une clé publiable qui a cette portée.',
  originRefused: (origin) =>
    `Le service Nature Profile API a refusé cette page\u00a0: sa clé publiable ne peut pas être utilisée sur ${origin}. ` +
    'La personne qui gère le site doit donner à la page une clé publiable qui autorise cette origine.',
  notFound:
    'Le service Nature Profile API ne connaît pas cette évaluation. La personne qui gère le site doit vérifier les attributs ' +
    "subject-id et assessment-id de la page, et que sa clé publiable est du même environnement (test ou live) que l'évaluation.",
  // The API's detail is English: never shown here, the element says it in its own words.
  notOpen: (status) =>
    status === 'expired'
      ? "Cette évaluation a expiré et n'accepte plus de réponses."
      : status === 'abandoned'
        ? "Cette évaluation a été abandonnée et n'accepte plus de réponses."
        : "Cette évaluation n'accepte plus de réponses.",
  refused: () => 'Le service Nature Profile API a répondu par une erreur (voir le code ci-dessous).',
};

export const words: Record<Language, Words> = { en, fr };
