import { STYLESHEET } from '../http/docs/render.js';
import { staticAsset } from '../http/static-asset.js';

/** The guides' stylesheet, and what the dashboard adds: forms, buttons, status badges, a secret shown once. */
const DASHBOARD_STYLES = `
header { display: flex; flex-wrap: wrap; align-items: center; justify-content: space-between; }
header nav { margin: 0; }
.who { display: flex; gap: 0.75rem; align-items: center; padding: 0.5rem 1.5rem; color: var(--muted); }
.who form { margin: 0; }
main { max-width: 72rem; }
label { display: block; font-weight: 600; margin: 0.75rem 0 0.25rem; }
.hint { font-weight: 400; color: var(--muted); font-size: 0.9em; }
input[type="text"], input[type="email"], input[type="password"], input[type="url"], input[type="number"], textarea, select {
  font: inherit; width: 100%; max-width: 32rem; padding: 0.45rem 0.6rem; border: 1px solid #8c959f; border-radius: 6px; background: #fff; color: var(--ink);
}
textarea { min-height: 6rem; }
fieldset { min-width: 0; border: 1px solid var(--line); border-radius: 6px; margin: 0.75rem 0; padding: 0.5rem 1rem 0.75rem; max-width: 32rem; }
legend { font-weight: 600; padding: 0 0.25rem; }
fieldset label { display: flex; align-items: baseline; gap: 0.4rem; font-weight: 400; margin: 0.25rem 1.25rem 0.25rem 0; }
button, .button { font: inherit; font-weight: 600; padding: 0.45rem 0.9rem; border-radius: 6px; border: 1px solid #1f6f3f; background: #1a7f37; color: #fff; cursor: pointer; text-decoration: none; display: inline-block; }
button.secondary, .button.secondary { background: #f6f8fa; color: var(--ink); border-color: #8c959f; }
button.danger { background: #b42318; border-color: #8a1c12; }
button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible, summary:focus-visible { outline: 3px solid #ffbf47; outline-offset: 2px; }
form.inline { display: inline; margin: 0 0.25rem 0 0; }
.actions { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; margin: 1rem 0; }
.notice { border: 1px solid var(--line); border-left: 4px solid #0a58ca; background: #f6f8fa; padding: 0.75rem 1rem; border-radius: 6px; margin: 1rem 0; }
.notice.error { border-left-color: #b42318; background: #fff5f5; }
.notice.success { border-left-color: #1a7f37; }
.secret { display: flex; flex-wrap: wrap; gap: 0.5rem; align-items: center; }
.secret code { font-size: 1rem; padding: 0.4rem 0.6rem; word-break: break-all; }
.badge { display: inline-block; padding: 0 0.5rem; border-radius: 999px; font-size: 0.85em; font-weight: 600; border: 1px solid currentColor; white-space: nowrap; }
.badge.active, .badge.enabled, .badge.approved, .badge.succeeded { color: #116329; }
.badge.revoked, .badge.rotated, .badge.disabled, .badge.rejected, .badge.failed, .badge.endpoint_gone { color: #a40e26; }
.badge.pending, .badge.retrying, .badge.cancelled { color: #7d4e00; }
table { display: table; }
.scroll { overflow-x: auto; }
.scroll:focus-visible { outline: 3px solid #ffbf47; outline-offset: 2px; }
td code, p code { overflow-wrap: anywhere; }
td code.key { white-space: nowrap; }
.tabs { display: flex; gap: 1rem; margin: 0.5rem 0 1rem; }
.tabs a[aria-current="page"] { color: var(--ink); font-weight: 700; text-decoration: none; border-bottom: 2px solid var(--ink); }
.chart text { font: 12px system-ui, sans-serif; fill: var(--ink); }
.signin { max-width: 26rem; }
.filters { display: grid; grid-template-columns: repeat(auto-fit, minmax(13rem, 1fr)); gap: 0 1rem; align-items: start; }
.filters .hint { margin: 0.25rem 0 0; }
dl.fields { display: grid; grid-template-columns: max-content 1fr; gap: 0.35rem 1rem; }
dl.fields dt { font-weight: 600; }
dl.fields dd { margin: 0; overflow-wrap: anywhere; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip-path: inset(50%); white-space: nowrap; }
@media (max-width: 40rem) {
  nav { padding: 0.5rem 1rem; gap: 0.25rem 1rem; }
  main { padding: 0.5rem 1rem 2rem; }
  th, td { padding: 0.3rem 0.4rem; }
  .wide { display: none; }
}
`;

export const dashboardStylesheet = staticAsset(STYLESHEET + DASHBOARD_STYLES, 'text/css; charset=utf-8');

/**
 * The one script: progressive enhancement only (every page works without it). A copy button beside a secret
 * shown once, announced to screen readers.
 */
const SCRIPT = `
// A form is sent once: a second click while the first is on its way would rotate or create twice.
for (const form of document.querySelectorAll('form[method="post"]')) {
  form.addEventListener('submit', () => {
    for (const button of form.querySelectorAll('button[type="submit"]')) button.disabled = true;
  });
}
for (const button of document.querySelectorAll('button[data-copy]')) {
  button.hidden = false;
  button.addEventListener('click', async () => {
    const source = document.getElementById(button.dataset.copy);
    const status = document.getElementById(button.dataset.copy + '-status');
    try {
      await navigator.clipboard.writeText(source.textContent.trim());
      status.textContent = 'Copied.';
    } catch {
      const range = document.createRange();
      range.selectNodeContents(source);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      status.textContent = 'Selected: press Ctrl+C (or Cmd+C) to copy.';
    }
  });
}
`;

export const dashboardScript = staticAsset(SCRIPT, 'text/javascript; charset=utf-8');

/** What a dashboard page may load: its own stylesheet and script, and nothing from anywhere else. */
export const DASHBOARD_POLICY =
  "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";
