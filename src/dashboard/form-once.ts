import type { FastifyReply, FastifyRequest } from 'fastify';
import { ProblemError } from '../http/problem.js';
import { type DashboardContext, field, seeOther } from './context.js';
import type { Html } from './html.js';
import { IDLE_MS } from './sessions.js';

/** What a form did: the page to go to, and a secret to show once there (a raw key, a signing secret). */
export interface FormOutcome {
  location: string;
  reveal?: Html;
}

interface Entry {
  outcome: Promise<FormOutcome>;
  at: number;
}

/** A form's one-time token as layout.ts makes them: 16 random bytes, base64url. */
const TOKEN = /^[A-Za-z0-9_-]{22}$/;
/** Outcomes kept at most, all sessions together: the oldest go first. */
const MAX_KEPT = 10_000;

/** What the pages work with: the context, and the outcomes of forms already sent. */
export interface PageContext extends DashboardContext {
  forms: FormOutcomes;
}

/**
 * Each form of a page carries a one-time token. The first POST with it acts and keeps its outcome, bound to the
 * session; a second POST with the same token (a double click, a reload, the back button) acts on nothing and is
 * sent to the same page. A secret the outcome reveals is shown on that page once, then forgotten. Kept in this
 * process's memory, for as long as a session may stay idle: never in the address, never in a store.
 */
export class FormOutcomes {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly clock: () => Date) {}

  /**
   * The page the form's first POST leads to (with `result=<token>` when it reveals a secret): `act` runs only for
   * the first; a second waits for the first and acts on nothing. A failed one may be sent again.
   */
  async once(sessionId: string, token: string, act: () => Promise<FormOutcome>): Promise<string> {
    const now = this.clock().getTime();
    this.prune(now);
    const key = `${sessionId} ${token}`;
    const earlier = this.entries.get(key);
    if (earlier !== undefined) return (await earlier.outcome).location;
    const outcome = act().then(({ location, reveal }) =>
      reveal === undefined ? { location } : { location: `${location}${location.includes('?') ? '&' : '?'}result=${token}`, reveal },
    );
    this.entries.set(key, { outcome, at: now });
    try {
      return (await outcome).location;
    } catch (error) {
      this.entries.delete(key);
      throw error;
    }
  }

  /** The secret the form's outcome reveals, the first time it is asked for; undefined after. */
  async reveal(sessionId: string, token: string): Promise<Html | undefined> {
    const entry = this.entries.get(`${sessionId} ${token}`);
    if (entry === undefined) return undefined;
    const { location, reveal } = await entry.outcome;
    entry.outcome = Promise.resolve({ location });
    return reveal;
  }

  private prune(now: number) {
    for (const [key, entry] of this.entries) {
      if (now - entry.at < IDLE_MS && this.entries.size < MAX_KEPT) break;
      this.entries.delete(key);
    }
  }
}

/**
 * Answers a state-changing form with a redirect (POST/redirect/GET) to its outcome's page, acting once per form
 * token. The page learns which outcome to reveal from `result`, the form's token, never from the secret itself.
 */
export async function answerOnce(
  forms: FormOutcomes,
  request: FastifyRequest,
  reply: FastifyReply,
  act: () => Promise<FormOutcome>,
): Promise<FastifyReply> {
  const token = field(request.body, '_once');
  if (!TOKEN.test(token))
    throw new ProblemError('validation_failed', 'This form is out of date, so nothing was changed: reload the page and send it again.');
  return seeOther(reply, await forms.once(request.signedIn!.session.id_hash, token, act));
}

/** The secret a form's outcome reveals on the page its redirect led to (`result=<token>`), once. */
export async function revealed(forms: FormOutcomes, request: FastifyRequest): Promise<Html | undefined> {
  const token = field(request.query, 'result');
  return TOKEN.test(token) ? forms.reveal(request.signedIn!.session.id_hash, token) : undefined;
}
