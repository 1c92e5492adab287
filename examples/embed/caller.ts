/**
 * The caller's own server, as a product that embeds the assessment would write it: it keeps its secret (sk)
 * key, creates a subject and starts an assessment for each visitor (remembered by a cookie, so a reload
 * resumes the same assessment), serves the page with the `<nature-assessment>` component, and receives the
 * signed webhook that says the profile is ready. The sk key never reaches the page.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { renderPage } from './page.js';

export interface CallerSettings {
  /** The Nature Profile API, e.g. http://127.0.0.1:8080. */
  apiUrl: string;
  /** The server's secret key (`test_sk_…`): stays here. */
  secretKey: string;
  /** The publishable key (`test_pk_…`), restricted to this page's origin: handed to the page. */
  publishableKey: string;
  /** The signing secret of the webhook endpoint registered for `POST /webhooks` (`whsec_…`). */
  webhookSecret: string;
}

/** One visitor of the page: the subject and the assessment the server made for them, with its client secret. */
export interface Visit {
  subjectId: string;
  assessmentId: string;
  /** Shown once by the API when the assessment starts; the server keeps it to serve the page again. */
  clientSecret: string;
  /** Whether this server lets the person see their result (the component then shows it after the last answer). */
  resultVisible: boolean;
  /** The component's `language` attribute, where this server sets one (without it, the component speaks the assessment's language). */
  language?: string;
}

/** A webhook delivery that verified. */
export interface Delivery {
  webhookId: string;
  type: string;
  data: Record<string, string>;
  receivedAt: string;
}

/** What the receiver made of a `nature.assessment.completed` delivery: the profile, fetched with the sk key. */
export interface Completion {
  eventId: string;
  profileId: string;
  profile?: Record<string, unknown>;
  error?: string;
}

/** The consent text the visitor agreed to before the assessment (in a real product, on the previous screen). */
const CONSENT_TEXT_VERSION = 'consent-v3';
const CONSENT_TEXT = 'I agree that Example Careers stores my answers to the Nature Profile assessment and the profile computed from them.';
const CONSENT_UI_HASH = `sha256:${createHash('sha256').update(CONSENT_TEXT).digest('hex')}`;

const COOKIE = 'visitor';

export class CallerServer {
  readonly server: Server;
  /** The visitors this server knows, by the id in their cookie (a real product keeps them in its database). */
  readonly visits = new Map<string, Visit>();
  /** Every delivery that verified, once per webhook-id (deliveries are at least once). */
  readonly deliveries: Delivery[] = [];
  /** Deliveries refused with 400 because their signature did not verify. */
  rejectedDeliveries = 0;
  /** Completed assessments by id, with their profile. */
  readonly completions = new Map<string, Completion>();
  private settings: CallerSettings | undefined;
  private readonly pending = new Set<Promise<unknown>>();

  constructor() {
    this.server = createServer((request, response) => {
      this.handle(request, response).catch((error: unknown) => {
        console.error('caller: request failed:', error);
        if (!response.headersSent) response.writeHead(502, { 'content-type': 'text/plain; charset=utf-8' });
        response.end('The assessment service could not be reached. Try again in a moment.\n');
      });
    });
  }

  /** Listens on loopback; `port` 0 picks a free one. Resolves with the port. */
  async listen(port: number): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, '127.0.0.1', () => {
        this.server.off('error', reject);
        resolve();
      });
    });
    return (this.server.address() as AddressInfo).port;
  }

  /** The keys and the webhook secret, known once the API is up (the port must be known to mint the pk key). */
  configure(settings: CallerSettings): void {
    this.settings = settings;
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.pending]);
    await new Promise<void>((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const settings = this.settings;
    if (settings === undefined) {
      response
        .writeHead(503, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '1' })
        .end('Starting; try again in a moment.\n');
      return;
    }
    const [path, query] = (request.url ?? '/').split('?');
    if (request.method === 'GET' && path === '/') return this.page(settings, request, response, new URLSearchParams(query));
    if (request.method === 'GET' && path === '/status') return this.status(request, response);
    if (request.method === 'POST' && path === '/webhooks') return this.webhook(settings, request, response);
    if (request.method === 'GET' && path === '/favicon.ico') {
      response.writeHead(204).end();
      return;
    }
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found\n');
  }

  /** The page: the visitor's assessment (made on the first visit, resumed on the next), with the component. */
  private async page(settings: CallerSettings, request: IncomingMessage, response: ServerResponse, query: URLSearchParams): Promise<void> {
    let visitorId = visitorOf(request);
    let visit = visitorId === undefined ? undefined : this.visits.get(visitorId);
    let status = 'created';
    if (visit !== undefined) {
      const assessment = await this.api(settings, 'GET', `/v1/nature/subjects/${visit.subjectId}/assessments/${visit.assessmentId}`);
      status = String(assessment.status);
      // An assessment that can no longer be answered (abandoned, expired) is replaced by a new one.
      if (status === 'abandoned' || status === 'expired') {
        visit = { ...visit, ...(await this.startAssessment(settings, visit.subjectId, visit.resultVisible)) };
        this.visits.set(visitorId!, visit);
        status = 'created';
      }
    } else {
      visitorId = randomBytes(16).toString('base64url');
      const subject = await this.api(settings, 'POST', '/v1/nature/subjects', {
        external_subject_id: `visitor-${visitorId}`,
        metadata: { source: 'embed-example' },
        consent: { text_version: CONSENT_TEXT_VERSION, granted_at: new Date().toISOString(), ui_hash: CONSENT_UI_HASH },
      });
      const subjectId = String(subject.id);
      // Shown to the person, or not: this example lets a first visit to /?result=visible choose, to show both.
      const resultVisible = query.get('result') === 'visible';
      visit = { subjectId, resultVisible, ...(await this.startAssessment(settings, subjectId, resultVisible)) };
      this.visits.set(visitorId, visit);
    }
    response.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      'set-cookie': `${COOKIE}=${visitorId}; Path=/; HttpOnly; SameSite=Lax; Max-Age=604800`,
    });
    response.end(
      renderPage({
        apiUrl: settings.apiUrl,
        publishableKey: settings.publishableKey,
        subjectId: visit.subjectId,
        assessmentId: visit.assessmentId,
        clientSecret: visit.clientSecret,
        open: status === 'created' || status === 'in_progress',
        ...(visit.language !== undefined && { language: visit.language }),
      }),
    );
  }

  private async startAssessment(
    settings: CallerSettings,
    subjectId: string,
    resultVisible: boolean,
  ): Promise<Pick<Visit, 'assessmentId' | 'clientSecret'>> {
    const assessment = await this.api(settings, 'POST', `/v1/nature/subjects/${subjectId}/assessments`, {
      language: 'en',
      result_visible_to_subject: resultVisible,
    });
    return { assessmentId: String(assessment.id), clientSecret: String(assessment.client_secret) };
  }

  /** What the page polls: whether the webhook came and the profile is ready (for this visitor only). */
  private status(request: IncomingMessage, response: ServerResponse): void {
    const visitorId = visitorOf(request);
    const visit = visitorId === undefined ? undefined : this.visits.get(visitorId);
    const completion = visit === undefined ? undefined : this.completions.get(visit.assessmentId);
    const body = {
      subject_id: visit?.subjectId ?? null,
      assessment_id: visit?.assessmentId ?? null,
      webhook: completion === undefined ? null : { event_id: completion.eventId, verified: true },
      profile: completion?.profile ?? null,
      profile_error: completion?.error ?? null,
    };
    response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }).end(JSON.stringify(body));
  }

  /** The webhook receiver: verifies the raw body with standardwebhooks, then fetches the profile with the sk key. */
  private async webhook(settings: CallerSettings, request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    let event: { type: string; data: Record<string, string> };
    try {
      event = new Webhook(settings.webhookSecret).verify(body, request.headers as Record<string, string>) as typeof event;
    } catch {
      this.rejectedDeliveries++;
      response.writeHead(400).end();
      return;
    }
    const webhookId = String(request.headers['webhook-id']);
    response.writeHead(204).end();
    // At least once: an event id already handled is acknowledged and skipped.
    if (this.deliveries.some((delivery) => delivery.webhookId === webhookId)) return;
    this.deliveries.push({ webhookId, type: event.type, data: event.data, receivedAt: new Date().toISOString() });
    const { assessment_id: assessmentId, profile_id: profileId } = event.data;
    // Test events (ids ending in TEST) name nothing to fetch.
    if (event.type !== 'nature.assessment.completed' || assessmentId === undefined || profileId === undefined || profileId.endsWith('TEST'))
      return;
    const completion: Completion = { eventId: webhookId, profileId };
    const fetching = this.api(settings, 'GET', `/v1/nature/profiles/${profileId}`).then(
      (profile) => {
        completion.profile = profile;
        this.completions.set(assessmentId, completion);
      },
      (error: unknown) => {
        completion.error = error instanceof Error ? error.message : String(error);
        this.completions.set(assessmentId, completion);
      },
    );
    this.pending.add(fetching);
    void fetching.finally(() => this.pending.delete(fetching));
  }

  /** A request to the API with the server's secret key. (A product that retries would send an Idempotency-Key, the same on each retry.) */
  private async api(settings: CallerSettings, method: 'GET' | 'POST', path: string, body?: unknown): Promise<Record<string, unknown>> {
    const response = await fetch(`${settings.apiUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${settings.secretKey}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${String(answer.code)}: ${String(answer.detail)}`);
    return answer;
  }
}

function visitorOf(request: IncomingMessage): string | undefined {
  for (const part of (request.headers.cookie ?? '').split(';')) {
    const [name, value] = part.trim().split('=');
    if (name === COOKIE && value !== undefined && /^[\w-]{1,64}$/.test(value)) return value;
  }
  return undefined;
}
