import { describe, expect, it } from 'vitest';
import { type ApiError, NETWORK_MESSAGE } from '../../packages/embed/src/api.js';
import { explain } from '../../packages/embed/src/messages.js';
import { words } from '../../packages/embed/src/words.js';

const PAGE = 'https://app.example.com';
/** A no-break space, as French puts before a colon. */
const NBSP = '\u00a0';

const error = (status: number | null, code: string, extra: Partial<ApiError> = {}): ApiError => ({
  code,
  status,
  title: code,
  detail: `the API's own detail of ${code}`,
  request_id: 'req_1',
  retryAfterMs: null,
  ...extra,
});

const closed = (status: string) =>
  error(401, 'assessment_not_open', { assessment_status: status, detail: `This assessment is ${status} and no longer takes answers.` });

describe("the element's words for a failure", () => {
  it('for a failure it retries: what happened, without blaming anyone (the countdown goes beside it)', () => {
    expect(explain(error(null, 'network_error', { detail: NETWORK_MESSAGE, request_id: null }), PAGE, 'en')).toBe(NETWORK_MESSAGE);
    expect(explain(error(503, 'internal_error'), PAGE, 'en')).toBe('The Nature Profile API could not answer just now.');
    expect(explain(error(429, 'rate_limited'), PAGE, 'en')).toBe('The Nature Profile API is busy just now.');
    expect([5, 1, 0].map(words.en.retrying)).toEqual(['Retrying in 5 s…', 'Retrying in 1 s…', 'Retrying now…']);
  });

  it('for a failure it gives up on: what the site owner must fix, in plain words', () => {
    expect(explain(error(401, 'unauthenticated'), PAGE, 'en')).toMatch(
      /^The Nature Profile API refused this page's publishable key or client secret\. The site owner must give the page a current publishable key \(a revoked or rotated key no longer works\)/,
    );
    const origin = explain(error(403, 'insufficient_scope'), PAGE, 'en');
    expect(origin).toContain(`its publishable key may not be used on ${PAGE}.`);
    expect(origin).toContain('The site owner must give the page a publishable key that allows this origin');
    expect(explain(error(403, 'insufficient_scope', { required_scope: 'nature:read' }), PAGE, 'en')).toBe(
      'The Nature Profile API refused this page: its publishable key lacks the nature:read scope. The site owner must give the page a publishable key with that scope.',
    );
    expect(explain(error(404, 'not_found'), PAGE, 'en')).toMatch(/The site owner must check the subject-id and assessment-id/);
  });

  it('keeps the detail that is already plain: an assessment no longer open, a refused batch', () => {
    expect(explain(closed('expired'), PAGE, 'en')).toBe('This assessment is expired and no longer takes answers.');
    expect(explain(error(422, 'validation_failed'), PAGE, 'en')).toBe("the API's own detail of validation_failed");
  });

  it('gives the site owner the code and request id to quote', () => {
    expect(words.en.reference('unauthenticated', 'req_1')).toBe('Error code unauthenticated, request req_1.');
    expect(words.en.reference('missing_attribute', null)).toBe('Error code missing_attribute.');
  });
});

describe("the element's words for a failure, in French", () => {
  it('for a failure it retries: what happened, and the countdown with a no-break space before the unit', () => {
    expect(explain(error(null, 'network_error', { detail: NETWORK_MESSAGE, request_id: null }), PAGE, 'fr')).toBe(
      'Impossible de joindre le service Nature Profile API. Vérifiez votre connexion à Internet.',
    );
    expect(explain(error(503, 'internal_error'), PAGE, 'fr')).toBe("Le service Nature Profile API n'a pas pu répondre pour le moment.");
    expect(explain(error(429, 'rate_limited'), PAGE, 'fr')).toBe('Le service Nature Profile API est très sollicité en ce moment.');
    expect([5, 1, 0].map(words.fr.retrying)).toEqual([
      `Nouvel essai dans 5${NBSP}s…`,
      `Nouvel essai dans 1${NBSP}s…`,
      'Nouvel essai en cours…',
    ]);
  });

  it('for a failure it gives up on: what the person who runs the site must fix', () => {
    expect(explain(error(401, 'unauthenticated'), PAGE, 'fr')).toBe(
      'Le service Nature Profile API a refusé la clé publiable ou le secret client de cette page. La personne qui gère le site doit ' +
        'donner à la page une clé publiable en vigueur (une clé révoquée ou remplacée ne fonctionne plus) et le secret client de cette évaluation.',
    );
    expect(explain(error(403, 'insufficient_scope'), PAGE, 'fr')).toBe(
      `Le service Nature Profile API a refusé cette page${NBSP}: sa clé publiable ne peut pas être utilisée sur ${PAGE}. ` +
        'La personne qui gère le site doit donner à la page une clé publiable qui autorise cette origine.',
    );
    expect(explain(error(403, 'insufficient_scope', { required_scope: 'nature:read' }), PAGE, 'fr')).toBe(
      `Le service Nature Profile API a refusé cette page${NBSP}: sa clé publiable n'a pas la portée nature:read. ` +
        'La personne qui gère le site doit donner à la page une clé publiable qui a cette portée.',
    );
    expect(explain(error(404, 'not_found'), PAGE, 'fr')).toBe(
      'Le service Nature Profile API ne connaît pas cette évaluation. La personne qui gère le site doit vérifier les attributs ' +
        "subject-id et assessment-id de la page, et que sa clé publiable est du même environnement (test ou live) que l'évaluation.",
    );
  });

  it("never shows the API's English detail: a closed assessment and any other refusal get French sentences of their own", () => {
    expect(explain(closed('expired'), PAGE, 'fr')).toBe("Cette évaluation a expiré et n'accepte plus de réponses.");
    expect(explain(closed('abandoned'), PAGE, 'fr')).toBe("Cette évaluation a été abandonnée et n'accepte plus de réponses.");
    // A 409 assessment_not_open to a batch carries the status the same way.
    expect(explain(error(409, 'assessment_not_open', { assessment_status: 'expired' }), PAGE, 'fr')).toBe(
      "Cette évaluation a expiré et n'accepte plus de réponses.",
    );
    const other = 'Le service Nature Profile API a répondu par une erreur (voir le code ci-dessous).';
    expect(explain(error(422, 'validation_failed'), PAGE, 'fr')).toBe(other);
    expect(explain(error(200, 'unexpected_response'), PAGE, 'fr')).toBe(other);
    expect(explain(error(409, 'conflict'), PAGE, 'fr')).toBe(other);
  });

  it('gives the code and request id to quote, in French', () => {
    expect(words.fr.reference('unauthenticated', 'req_1')).toBe("Code d'erreur unauthenticated, requête req_1.");
    expect(words.fr.reference('missing_attribute', null)).toBe("Code d'erreur missing_attribute.");
  });
});
