import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { createUser } from '../../src/commands/accounts.js';
import type { TestApp } from './test-app.js';

export const PASSWORD = 'correct horse battery staple';

/** A dashboard owner made as the operator's `nature users create --password-stdin` makes one. */
export async function dashboardUser(testApp: TestApp, email = `owner-${Math.random().toString(36).slice(2)}@example.com`) {
  await createUser({ accounts: testApp.accounts, dataKeys: testApp.envs.test.dataKeys }, email, PASSWORD, new Date());
  return email;
}

/** The value of a page's first CSRF field. */
export function csrfOf(page: string): string {
  const token = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
  if (token === undefined) throw new Error(`no CSRF field in the page:\n${page.slice(0, 500)}`);
  return token;
}

/** The one-time token of the page's form that posts to `action`, if the page has that form. */
export function onceOf(page: string, action: string): string | undefined {
  const form = page.split('<form').find((each) => each.includes(`action="${action}"`));
  return form === undefined ? undefined : /name="_once" value="([^"]+)"/.exec(form.split('</form>')[0]!)?.[1];
}

/**
 * A browser as far as the dashboard can tell: it keeps the cookies it is given (per name, as a browser keeps them
 * for /dashboard) and sends them back, and fills in forms' CSRF tokens from the last page it read.
 */
export class Browser {
  readonly cookies = new Map<string, string>();
  lastPage = '';

  constructor(
    private readonly app: FastifyInstance,
    private readonly host = 'localhost',
  ) {}

  private keep(response: LightMyRequestResponse): LightMyRequestResponse {
    for (const cookie of response.cookies) {
      if (
        cookie.value === '' ||
        (cookie.maxAge !== undefined && cookie.maxAge <= 0) ||
        (cookie.expires !== undefined && cookie.expires.getTime() < Date.now())
      )
        this.cookies.delete(cookie.name);
      else this.cookies.set(cookie.name, cookie.value);
    }
    if (response.headers['content-type']?.toString().startsWith('text/html')) this.lastPage = response.body;
    return response;
  }

  private get cookieHeader() {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async get(url: string) {
    return this.keep(await this.app.inject({ method: 'GET', url, headers: { host: this.host, cookie: this.cookieHeader } }));
  }

  /**
   * A form sent as a browser sends it; the last page's CSRF token unless `csrf` says otherwise (null: none), and the
   * one-time token of the form with this action on the page it was sent from (`from`: a page read earlier, to send
   * its form again as a double click or a reload does).
   */
  async post(url: string, form: Record<string, string | string[]>, csrf: string | null = csrfOf(this.lastPage), from = this.lastPage) {
    const body = new URLSearchParams();
    for (const [name, value] of Object.entries(form)) for (const each of [value].flat()) body.append(name, each);
    if (csrf !== null) body.append('_csrf', csrf);
    const once = onceOf(from, url);
    if (once !== undefined && !('_once' in form)) body.append('_once', once);
    return this.keep(
      await this.app.inject({
        method: 'POST',
        url,
        headers: { host: this.host, cookie: this.cookieHeader, 'content-type': 'application/x-www-form-urlencoded' },
        payload: body.toString(),
      }),
    );
  }

  /** The page a redirect leads to, as a browser follows a 303. */
  async follow(response: LightMyRequestResponse) {
    if (response.statusCode !== 303) throw new Error(`expected a 303, got ${response.statusCode}:\n${response.body.slice(0, 500)}`);
    return this.get(String(response.headers.location));
  }

  async signIn(email: string, password = PASSWORD) {
    await this.get('/dashboard/sign-in');
    return this.post('/dashboard/sign-in', { email, password });
  }
}

/** The raw key or secret a page shows once. */
export function shownSecret(page: string, pattern: RegExp): string {
  const value = pattern.exec(page)?.[0];
  if (value === undefined) throw new Error(`no secret matching ${pattern} in the page`);
  return value;
}
