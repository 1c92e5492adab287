import { randomBytes } from 'node:crypto';
import type { Role } from '../domain/accounts.js';
import { type Html, html } from './html.js';

/** The sections of the dashboard, in the order of its navigation bar. */
export const sections = [
  { path: '/dashboard/keys', title: 'API keys' },
  { path: '/dashboard/production', title: 'Production access' },
  { path: '/dashboard/sandbox/webhooks', title: 'Webhooks' },
  { path: '/dashboard/sandbox/events', title: 'Events' },
  { path: '/dashboard/sandbox/requests', title: 'Requests' },
  { path: '/dashboard/sandbox/usage', title: 'Usage' },
  { path: '/dashboard/members', title: 'Members' },
  { path: '/dashboard/activity', title: 'Activity' },
  { path: '/dashboard/security', title: 'Security' },
] as const;

export type Section = (typeof sections)[number]['title'];

export interface Viewer {
  email: string;
  /** What the pages' forms are shown by (permissions.ts's table). */
  role: Role;
  /** The CSRF token every form of the page carries. */
  csrf: string;
}

/**
 * The hidden fields every form carries: the page's CSRF token, and a one-time token of the form's own, so that the
 * form sent twice acts once (form-once.ts).
 */
export const formTokens = (csrf: string) =>
  html`<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="_once" value="${randomBytes(16).toString('base64url')}">`;

/**
 * A whole page: the guides' look, one stylesheet and one script of our own, a navigation bar with the section
 * marked, and the signed-in person with a sign-out button. Pages for signed-out people have no navigation.
 */
export function page(title: string, body: Html, viewer?: Viewer, current?: Section): Html {
  const nav =
    viewer === undefined
      ? html`<nav aria-label="Dashboard"><a href="/docs">Documentation</a></nav>`
      : html`<nav aria-label="Dashboard">${sections.map(
          (section) => html`<a href="${section.path}"${section.title === current ? html` aria-current="page"` : ''}>${section.title}</a>`,
        )}</nav>
<div class="who"><span>${viewer.email} · ${viewer.role}</span><form method="post" action="/dashboard/sign-out">${formTokens(viewer.csrf)}<button class="secondary" type="submit">Sign out</button></form></div>`;
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} · Nature Profile API dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/dashboard/assets/dashboard.css">
<script src="/dashboard/assets/dashboard.js" defer></script>
</head>
<body>
<header>${nav}</header>
<main id="main">
<h1>${title}</h1>
${body}
</main>
<footer>Nature Profile API dashboard · <a href="/docs">Documentation</a></footer>
</body>
</html>
`;
}

/** A secret shown once, with a copy button (shown by the script) whose result is announced. */
export function shownOnce(id: string, label: string, value: string): Html {
  return html`<div class="notice success" role="status">
<p><strong>${label}</strong> This is the only time it is shown: store it now.</p>
<div class="secret"><code id="${id}">${value}</code><button type="button" class="secondary" data-copy="${id}" hidden>Copy</button><span id="${id}-status" aria-live="polite"></span></div>
</div>`;
}

/** A message above a form: what went wrong, in words a person can act on. */
export const errorNotice = (message: string | undefined) =>
  message === undefined ? '' : html`<div class="notice error" role="alert"><p>${message}</p></div>`;

export const badge = (status: string) => html`<span class="badge ${status.replace(/[^a-z_]/g, '')}">${status.replace('_', ' ')}</span>`;

/** "2026-11-24 10:31 UTC": dates a person reads at a glance, in one zone for everyone. */
export const when = (iso: string | null | undefined) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : '–');

/** A time to the second, where seconds tell attempts apart (a delivery's retries): `2026-11-29 14:03:07 UTC`. */
export const toTheSecond = (iso: string | null | undefined) => (iso ? `${iso.slice(0, 10)} ${iso.slice(11, 19)} UTC` : '–');
