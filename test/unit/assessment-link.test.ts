import { describe, expect, it } from 'vitest';
import { linkAggregate } from '../../src/commands/aggregates.js';
import {
  type AssessmentLinkEvent,
  type AssessmentLinkState,
  type CreateLink,
  decideCreateLink,
  decideOpenLink,
  decideRevokeLink,
  derivedLinkToken,
  linkClosed,
  linkStatusAt,
  linkTokenMatches,
  mintLinkToken,
  parseLinkToken,
} from '../../src/domain/assessment-link.js';
import { DomainError } from '../../src/domain/errors.js';
import { deciderSpecification, refusal } from '../support/decider-spec.js';

const LINK = 'lnk_01JD4ZD3M6P8R0TV2X4Z6B8D0F';
const ASSESSMENT = 'asm_01JD4Z9T2W8P4RK1N6V3C7D5FB';
const at = (iso: string) => new Date(iso);

type LinkCommand =
  | ({ type: 'CreateLink' } & CreateLink)
  | { type: 'OpenLink'; assessment_id: string; now: Date }
  | { type: 'RevokeLink'; now: Date };

const link = deciderSpecification<AssessmentLinkState, AssessmentLinkEvent, LinkCommand>({
  ...linkAggregate,
  decide: (command, state) => {
    switch (command.type) {
      case 'CreateLink':
        return decideCreateLink(state, command);
      case 'OpenLink':
        return decideOpenLink(state, { link_id: LINK, assessment_id: command.assessment_id, now: command.now });
      case 'RevokeLink':
        return decideRevokeLink(state, { link_id: LINK, now: command.now });
    }
  },
});

const create: LinkCommand = {
  type: 'CreateLink',
  link_id: LINK,
  subject_id: 'sub_1',
  token_hash: 'ab'.repeat(32),
  language: 'fr',
  result_visible_to_subject: true,
  return_url: 'https://app.example.com/done',
  expires_in_seconds: 3600,
  now: at('2026-11-21T10:00:00.000Z'),
};
const created: AssessmentLinkEvent = {
  type: 'AssessmentLinkCreated',
  data: {
    link_id: LINK,
    subject_id: 'sub_1',
    token_hash: 'ab'.repeat(32),
    language: 'fr',
    result_visible_to_subject: true,
    created_at: '2026-11-21T10:00:00.000Z',
    expires_at: '2026-11-21T11:00:00.000Z',
    pii: { return_url: 'https://app.example.com/done' },
  },
};
const opened: AssessmentLinkEvent = {
  type: 'AssessmentLinkOpened',
  data: { link_id: LINK, subject_id: 'sub_1', assessment_id: ASSESSMENT, opened_at: '2026-11-21T10:30:00.000Z' },
};

describe('assessment link decider', () => {
  it('a create records the link, its return URL under pii, expiring after the time asked for; made again, nothing', () => {
    link.given([]).when(create).then([created]);
    link.given([created]).when(create).thenNothingHappened();
  });

  it('the first opening binds the assessment; a later one decides nothing (one link, one assessment)', () => {
    const state = link
      .given([created])
      .when({ type: 'OpenLink', assessment_id: ASSESSMENT, now: at('2026-11-21T10:30:00.000Z') })
      .then([opened]);
    expect(state?.assessment_id).toBe(ASSESSMENT);
    link
      .given([created, opened])
      .when({ type: 'OpenLink', assessment_id: 'asm_other', now: at('2026-11-21T10:40:00.000Z') })
      .thenNothingHappened();
  });

  it('an unknown link is refused (not_found); a revoke is recorded once', () => {
    link
      .given([])
      .when({ type: 'RevokeLink', now: at('2026-11-21T10:10:00.000Z') })
      .thenThrows(DomainError, refusal('not_found'));
    const revoked: AssessmentLinkEvent = {
      type: 'AssessmentLinkRevoked',
      data: { link_id: LINK, subject_id: 'sub_1', revoked_at: '2026-11-21T10:10:00.000Z' },
    };
    link
      .given([created])
      .when({ type: 'RevokeLink', now: at('2026-11-21T10:10:00.000Z') })
      .then([revoked]);
    link
      .given([created, revoked])
      .when({ type: 'RevokeLink', now: at('2026-11-21T10:20:00.000Z') })
      .thenNothingHappened();
  });

  it('expiry bounds the first opening only; once opened the link follows its assessment', () => {
    const fresh = link.given([created]).state!;
    const bound = link.given([created, opened]).state!;
    const late = at('2026-11-21T11:00:00.000Z');
    expect(linkClosed(fresh, at('2026-11-21T10:59:59.999Z'))).toBeUndefined();
    expect(linkClosed(fresh, late)).toBe('expired');
    expect(linkClosed(bound, late)).toBeUndefined();
    expect(linkClosed({ ...bound, revoked_at: '2026-11-21T10:50:00.000Z' }, late)).toBe('revoked');
    expect(linkStatusAt(fresh, undefined, late)).toBe('expired');
    expect(linkStatusAt(bound, 'in_progress', late)).toBe('opened');
    expect(linkStatusAt(bound, 'scoring', late)).toBe('completed');
    expect(linkStatusAt(bound, 'abandoned', late)).toBe('expired');
  });
});

describe('assessment link tokens', () => {
  it('name their environment and link, carry 40 random characters, and match only their own hash', () => {
    const token = mintLinkToken('live', LINK);
    expect(parseLinkToken(token.raw)).toEqual({ environment: 'live', link_id: LINK });
    expect(linkTokenMatches(token.raw, token.hash)).toBe(true);
    expect(linkTokenMatches(mintLinkToken('live', LINK).raw, token.hash)).toBe(false);
    expect(parseLinkToken(`${token.raw}x`)).toBeUndefined();
    expect(parseLinkToken(token.raw.replace('live_', 'prod_'))).toBeUndefined();
  });

  it('derived for an Idempotency-Key: the same for the same tag, another for another tag or secret', () => {
    const secret = Buffer.alloc(32, 7);
    const token = derivedLinkToken('test', LINK, secret, 'tag-1');
    expect(derivedLinkToken('test', LINK, secret, 'tag-1')).toEqual(token);
    expect(derivedLinkToken('test', LINK, secret, 'tag-2').raw).not.toBe(token.raw);
    expect(derivedLinkToken('test', LINK, Buffer.alloc(32, 8), 'tag-1').raw).not.toBe(token.raw);
    expect(parseLinkToken(token.raw)).toEqual({ environment: 'test', link_id: LINK });
  });
});
