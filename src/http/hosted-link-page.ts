import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { escapeXml } from '../charts/svg-markup.js';
import type { Language } from '../scoring/languages.js';
import { packagePath } from './static-asset.js';

/** The script that offers the return link once the person has finished (the component's events say when). */
export const HOSTED_LINK_SCRIPT = `const element = document.querySelector('nature-assessment');
const back = document.getElementById('return');
const offer = () => {
  if (back !== null) back.hidden = false;
};
element?.addEventListener('nature:submitted', offer);
element?.addEventListener('nature:progress', (event) => {
  if (event.detail.saved === event.detail.total) offer();
});
`;

const PAGE_STYLE = `
:root { color-scheme: light; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1f2a30; background: #f5f7f6; }
header { background: #ffffff; border-bottom: 1px solid #d4dcd8; }
header p { max-width: 48rem; margin: 0 auto; padding: 0.75rem 1rem; font-weight: 600; }
main { max-width: 48rem; margin: 0 auto; padding: 1rem; }
h1 { font-size: 1.5rem; line-height: 1.25; margin: 0.5rem 0 0.75rem; }
.return { margin: 1.5rem 0; }
.return a { display: inline-block; padding: 0.75rem 1.25rem; border-radius: 12px; background: #2f6f5e; color: #ffffff; font-weight: 600; text-decoration: none; }
.return a:focus-visible { outline: 3px solid #1a5fb4; outline-offset: 2px; }
`;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;

/**
 * The <style> the component adds to its shadow root, read from the bundle the API serves (a template literal
 * without escapes or substitutions, so its text is its value): allowed by hash, the page needs no 'unsafe-inline'.
 */
function componentStyle(bundle: string): string {
  const start = bundle.indexOf('`\n:host {');
  const end = bundle.indexOf('`', start + 1);
  if (start === -1 || end === -1) throw new Error("the embed bundle's shadow stylesheet was not found");
  return bundle.slice(start + 1, end);
}

/**
 * The hosted page's policy: scripts from this origin only (the component and the return script), its own style
 * and the component's by hash, API calls and the result chart to this origin; nothing frames it, no form posts.
 */
export function hostedPagePolicy(bundle = readFileSync(packagePath('packages/embed/dist/nature-assessment.js'), 'utf8')): string {
  const styles = [sha256(PAGE_STYLE), sha256(componentStyle(bundle))].join(' ');
  return `default-src 'none'; script-src 'self'; style-src ${styles}; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
}

const words = {
  en: {
    assessment: 'Your assessment',
    intro:
      'Choose how much each statement is like you. There are no right or wrong answers. Your answers are saved as you go: you can close this page and open this link again to carry on.',
    back: (caller: string | undefined) => (caller === undefined ? 'Continue' : `Back to ${caller}`),
    invalid: ['This link is not valid', 'Check that you copied the whole address, or ask whoever sent it to you for a new one.'],
    revoked: ['This link is no longer valid', 'Ask whoever sent it to you for a new one.'],
    expired: ['This link has expired', 'Ask whoever sent it to you for a new one.'],
    busy: [
      'You already have an assessment under way',
      'Finish the one you started, or ask whoever sent you this link to close it and send the link again.',
    ],
  },
  fr: {
    assessment: 'Votre questionnaire',
    intro:
      'Indiquez à quel point chaque affirmation vous ressemble. Il n’y a ni bonne ni mauvaise réponse. Vos réponses sont enregistrées au fur et à mesure : vous pouvez fermer cette page et rouvrir ce lien pour continuer.',
    back: (caller: string | undefined) => (caller === undefined ? 'Continuer' : `Retour à ${caller}`),
    invalid: [
      'Ce lien n’est pas valide',
      'Vérifiez que vous avez copié l’adresse en entier, ou demandez-en un nouveau à la personne qui vous l’a envoyé.',
    ],
    revoked: ['Ce lien n’est plus valide', 'Demandez-en un nouveau à la personne qui vous l’a envoyé.'],
    expired: ['Ce lien a expiré', 'Demandez-en un nouveau à la personne qui vous l’a envoyé.'],
    busy: [
      'Vous avez déjà un questionnaire en cours',
      'Terminez celui que vous avez commencé, ou demandez à la personne qui vous a envoyé ce lien de le clôturer puis de vous le renvoyer.',
    ],
  },
} as const;

export type Refusal = 'invalid' | 'revoked' | 'expired' | 'busy';

function document(language: Language, caller: string | undefined, title: string, body: string): string {
  const heading = caller === undefined ? '' : `<header><p>${escapeXml(caller)}</p></header>\n`;
  return `<!doctype html>
<html lang="${language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<title>${escapeXml(caller === undefined ? title : `${title} · ${caller}`)}</title>
<style>${PAGE_STYLE}</style>
</head>
<body>
${heading}<main>
${body}
</main>
</body>
</html>
`;
}

/** A link that cannot be answered (unknown, revoked, erased, expired, or its subject busy elsewhere): why, never the assessment. */
export function refusalPage(language: Language, caller: string | undefined, refusal: Refusal): string {
  const [title, advice] = words[language][refusal];
  return document(language, caller, title, `<h1>${escapeXml(title)}</h1>\n<p>${escapeXml(advice)}</p>`);
}

export interface AssessmentPage {
  language: Language;
  caller: string | undefined;
  token: string;
  clientSecret: string;
  subjectId: string;
  assessmentId: string;
  returnUrl: string | null;
  /** The person has finished: the return link is offered from the start. */
  finished: boolean;
}

/** The component, in the link's language, authenticated by the link's token and its assessment's client secret. */
export function assessmentPage(page: AssessmentPage): string {
  const said = words[page.language];
  const back =
    page.returnUrl === null
      ? ''
      : `<p class="return" id="return"${page.finished ? '' : ' hidden'}><a href="${escapeXml(page.returnUrl)}">${escapeXml(said.back(page.caller))}</a></p>\n`;
  const body = `<h1>${escapeXml(said.assessment)}</h1>
<p>${escapeXml(said.intro)}</p>
<nature-assessment language="${page.language}" publishable-key="${escapeXml(page.token)}" client-secret="${escapeXml(page.clientSecret)}" subject-id="${escapeXml(page.subjectId)}" assessment-id="${escapeXml(page.assessmentId)}"></nature-assessment>
${back}<script type="module" src="/v1/embed/nature-assessment.js"></script>
<script type="module" src="/v1/embed/assessment-link.js"></script>`;
  return document(page.language, page.caller, said.assessment, body);
}
