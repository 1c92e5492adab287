import { timingSafeEqual } from 'node:crypto';
import type { Language } from '../scoring/languages.js';
import { derivedRandomPart, type Environment, hashKey, randomPart } from './api-keys.js';
import type { AssessmentStatus } from './assessment.js';
import { DomainError } from './errors.js';

/**
 * A hosted assessment link: a URL on this service where the subject answers without the caller building a page.
 * Its token is the URL's last segment and the credential the hosted page calls the API with; only its SHA-256 is
 * kept. The return URL may name the person (a query string), so it travels sealed under `pii`.
 */
export type AssessmentLinkCreated = {
  type: 'AssessmentLinkCreated';
  data: {
    link_id: string;
    subject_id: string;
    token_hash: string;
    language: Language;
    result_visible_to_subject: boolean;
    created_at: string;
    expires_at: string;
    pii: { return_url: string | null } | null;
  };
};
/** The link's first opening started its one assessment (the start command's, so every rule of a start applied). */
export type AssessmentLinkOpened = {
  type: 'AssessmentLinkOpened';
  data: { link_id: string; subject_id: string; assessment_id: string; opened_at: string };
};
export type AssessmentLinkRevoked = {
  type: 'AssessmentLinkRevoked';
  data: { link_id: string; subject_id: string; revoked_at: string };
};
export type AssessmentLinkEvent = AssessmentLinkCreated | AssessmentLinkOpened | AssessmentLinkRevoked;

/** The link id a create sent with an Idempotency-Key chose, on a stream named by the key's tag (as endpoints do). */
export type AssessmentLinkIdChosen = { type: 'AssessmentLinkIdChosen'; data: { link_id: string } };

export const linkStream = (linkId: string) => `assessment_link-${linkId}`;
export const linkRequestStream = (idempotencyTag: string) => `assessment_link_request-${idempotencyTag}`;

export interface AssessmentLink {
  id: string;
  subject_id: string;
  token_hash: string;
  language: Language;
  result_visible_to_subject: boolean;
  created_at: string;
  expires_at: string;
  assessment_id: string | null;
  opened_at: string | null;
  revoked_at: string | null;
}
export type AssessmentLinkState = AssessmentLink | undefined;

export function evolveLink(state: AssessmentLinkState, event: AssessmentLinkEvent): AssessmentLinkState {
  switch (event.type) {
    case 'AssessmentLinkCreated': {
      const { link_id, pii: _sealed, ...rest } = event.data;
      return { id: link_id, ...rest, assessment_id: null, opened_at: null, revoked_at: null };
    }
    case 'AssessmentLinkOpened':
      return state && { ...state, assessment_id: event.data.assessment_id, opened_at: event.data.opened_at };
    case 'AssessmentLinkRevoked':
      return state && { ...state, revoked_at: event.data.revoked_at };
  }
}

/** How long a link may be opened for: 7 days unless the caller says, from 5 minutes to 30 days. */
export const LINK_TTL = { default: 7 * 86_400, min: 300, max: 30 * 86_400 } as const;

export interface CreateLink {
  link_id: string;
  subject_id: string;
  token_hash: string;
  language: Language;
  result_visible_to_subject: boolean;
  return_url: string | null;
  expires_in_seconds: number;
  now: Date;
}

export function decideCreateLink(state: AssessmentLinkState, command: CreateLink): AssessmentLinkEvent[] {
  if (state !== undefined) return [];
  const { link_id, subject_id, token_hash, language, result_visible_to_subject, return_url, now } = command;
  const expires_at = new Date(now.getTime() + command.expires_in_seconds * 1000).toISOString();
  return [
    {
      type: 'AssessmentLinkCreated',
      data: {
        link_id,
        subject_id,
        token_hash,
        language,
        result_visible_to_subject,
        created_at: now.toISOString(),
        expires_at,
        pii: { return_url },
      },
    },
  ];
}

function requireLink(state: AssessmentLinkState, linkId: string): AssessmentLink {
  if (state === undefined) throw new DomainError('not_found', `No assessment link ${linkId}.`);
  return state;
}

/** Why a link cannot be opened now, or undefined: one already opened is opened again (it resumes its assessment). */
export function linkClosed(link: AssessmentLink, now: Date): 'revoked' | 'expired' | undefined {
  if (link.revoked_at !== null) return 'revoked';
  if (link.assessment_id === null && now.getTime() >= Date.parse(link.expires_at)) return 'expired';
  return undefined;
}

/** Binds the link to the assessment its first opening started; a link already bound decides nothing. */
export function decideOpenLink(state: AssessmentLinkState, command: { link_id: string; assessment_id: string; now: Date }) {
  const link = requireLink(state, command.link_id);
  if (link.assessment_id !== null) return [];
  const opened: AssessmentLinkOpened = {
    type: 'AssessmentLinkOpened',
    data: { link_id: link.id, subject_id: link.subject_id, assessment_id: command.assessment_id, opened_at: command.now.toISOString() },
  };
  return [opened];
}

/** Revoking is idempotent: a revoked link stays revoked, at the time it first was. */
export function decideRevokeLink(state: AssessmentLinkState, command: { link_id: string; now: Date }): AssessmentLinkEvent[] {
  const link = requireLink(state, command.link_id);
  if (link.revoked_at !== null) return [];
  return [
    { type: 'AssessmentLinkRevoked', data: { link_id: link.id, subject_id: link.subject_id, revoked_at: command.now.toISOString() } },
  ];
}

export const linkStatuses = ['active', 'opened', 'completed', 'expired', 'revoked'] as const;
type LinkStatus = (typeof linkStatuses)[number];

/**
 * The link's status at `now`: `active` until opened or past expires_at (then `expired`); once opened it follows
 * its assessment: `opened` while it is open, `completed` once answered, `expired` if it closed unfinished.
 */
export function linkStatusAt(
  link: Pick<AssessmentLink, 'revoked_at' | 'expires_at' | 'assessment_id'>,
  assessment: AssessmentStatus | undefined,
  now: Date,
): LinkStatus {
  if (link.revoked_at !== null) return 'revoked';
  if (link.assessment_id === null) return now.getTime() >= Date.parse(link.expires_at) ? 'expired' : 'active';
  if (assessment === 'created' || assessment === 'in_progress' || assessment === undefined) return 'opened';
  return assessment === 'scoring' || assessment === 'completed' ? 'completed' : 'expired';
}

/**
 * The token: `test_`/`live_` (the environment, as a key's prefix picks it), the link id, and 40 random base62
 * characters (238 bits). It names its link, so it is checked against one document, never searched for.
 */
const TOKEN = /^(test|live)_(lnk_[0-9A-HJKMNP-TV-Z]{26})_[0-9A-Za-z]{40}$/;

export function mintLinkToken(environment: Environment, linkId: string): { raw: string; hash: string } {
  const raw = `${environment}_${linkId}_${randomPart()}`;
  return { raw, hash: hashKey(raw) };
}

/**
 * The token of a link created with an Idempotency-Key, drawn from the environment's secret and the key's tag:
 * a retry after a crash answers the token the first run minted (the log keeps only its hash).
 */
export function derivedLinkToken(environment: Environment, linkId: string, environmentSecret: Buffer, tag: string) {
  const raw = `${environment}_${linkId}_${derivedRandomPart(environmentSecret, `assessment-link\0${linkId}\0${tag}`)}`;
  return { raw, hash: hashKey(raw) };
}

/** The environment and link a token names, if `raw` has the form of one. */
export function parseLinkToken(raw: string): { environment: Environment; link_id: string } | undefined {
  const match = TOKEN.exec(raw);
  return match ? { environment: match[1] as Environment, link_id: match[2]! } : undefined;
}

export function linkTokenMatches(raw: string, hash: string): boolean {
  return timingSafeEqual(Buffer.from(hashKey(raw), 'hex'), Buffer.from(hash, 'hex'));
}

/** The tag the link's opening starts its assessment under: the client secret is derived from it, so every opening shows the same. */
export const linkStartTag = (linkId: string) => `assessment_link:${linkId}`;
