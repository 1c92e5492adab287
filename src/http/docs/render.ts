import { createHash } from 'node:crypto';
import { Marked, type Tokens } from 'marked';
import { escapeXml } from '../../charts/svg-markup.js';
import { type StaticAsset, staticAsset } from '../static-asset.js';

/** The guides, in the order of the navigation bar; the API reference and the document follow them. */
export const guides = [
  { slug: 'getting-started', title: 'Getting started' },
  { slug: 'conventions', title: 'API conventions' },
  { slug: 'assessments', title: 'Assessments and profiles' },
  { slug: 'french', title: 'Assessments in French' },
  { slug: 'quality', title: 'Answer quality' },
  { slug: 'webhooks', title: 'Webhooks' },
  { slug: 'embedding', title: 'Embedding the assessment' },
  { slug: 'client', title: 'TypeScript client' },
  { slug: 'mcp', title: 'MCP for agents' },
  { slug: 'careers', title: 'Careers' },
  { slug: 'careers-matching', title: 'How careers are matched' },
  { slug: 'situational', title: 'Situational assessments' },
  { slug: 'privacy', title: 'Personal data' },
  { slug: 'usage', title: 'Usage' },
  { slug: 'errors', title: 'Errors' },
] as const;

/** The guides' look, which the dashboard shares. */
export const STYLESHEET = `
:root { color-scheme: light; --ink: #1b1f24; --muted: #57606a; --line: #d0d7de; --code: #f3f4f6; --link: #0a58ca; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.6 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: #fff; }
header { border-bottom: 1px solid var(--line); background: #f6f8fa; }
nav { max-width: 60rem; margin: 0 auto; padding: 0.75rem 1.5rem; display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; }
nav a { font-weight: 600; }
nav a[aria-current="page"] { color: var(--ink); text-decoration: none; border-bottom: 2px solid var(--ink); }
main { max-width: 60rem; margin: 0 auto; padding: 1rem 1.5rem 3rem; }
a { color: var(--link); }
a:focus-visible { outline: 3px solid #ffbf47; outline-offset: 2px; }
h1, h2, h3 { line-height: 1.25; margin: 2rem 0 0.75rem; }
h1 { font-size: 2rem; margin-top: 1.5rem; }
h2 { font-size: 1.5rem; border-bottom: 1px solid var(--line); padding-bottom: 0.25rem; }
code { font: 0.9em/1.5 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; background: var(--code); padding: 0.1em 0.3em; border-radius: 4px; }
pre { background: var(--code); padding: 1rem; overflow-x: auto; border-radius: 6px; border: 1px solid var(--line); }
pre code { padding: 0; background: none; }
table { border-collapse: collapse; width: 100%; margin: 1rem 0; display: block; overflow-x: auto; }
th, td { border: 1px solid var(--line); padding: 0.4rem 0.6rem; text-align: left; vertical-align: top; }
th { background: #f6f8fa; }
tr:target { background: #fff8c5; }
blockquote { margin: 1rem 0; padding: 0 1rem; color: var(--muted); border-left: 4px solid var(--line); }
footer { max-width: 60rem; margin: 0 auto; padding: 1rem 1.5rem 2rem; color: var(--muted); border-top: 1px solid var(--line); }
`;

/** What the page may load: nothing but its own inline stylesheet (no script, no font, no CDN). */
const CONTENT_SECURITY_POLICY = `default-src 'none'; style-src 'sha256-${createHash('sha256').update(STYLESHEET).digest('base64')}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;

/** "Error catalogue" → "error-catalogue", "`subject_exists`" → "subject_exists": anchors a reader can type. */
const slug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_ -]/gu, '')
    .trim()
    .replace(/\s+/g, '-');

const markdown = new Marked({
  gfm: true,
  async: false,
  renderer: {
    // The guides are Markdown only: HTML in them is shown as written, so `Bearer <API key>` is never swallowed as a tag.
    html({ text }) {
      return escapeXml(text);
    },
    // A code block scrolls sideways when its lines are long: focusable, so a keyboard can scroll it too.
    code({ text, lang }) {
      const language = lang ? ` class="language-${escapeXml(lang.split(/\s/)[0]!)}"` : '';
      return `<pre tabindex="0"><code${language}>${escapeXml(text)}</code></pre>\n`;
    },
    heading({ tokens, depth }) {
      const plain = this.parser.parseInline(tokens, this.parser.textRenderer);
      return `<h${depth} id="${escapeXml(slug(plain))}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
    },
    // In a table with a "code" column (the error catalogue), each row is an anchor named by its code: a problem's
    // `type` is /docs/errors#<code>. Other tables are marked's own.
    table({ header, rows }) {
      const column = header.findIndex((cell) => cell.text === 'code');
      if (column === -1) return false;
      const row = (cells: Tokens.TableCell[], id?: string) =>
        `<tr${id === undefined ? '' : ` id="${escapeXml(id)}"`}>\n${cells.map((cell) => this.tablecell(cell)).join('')}</tr>\n`;
      const body = rows.map((cells) => row(cells, slug(this.parser.parseInline(cells[column]!.tokens, this.parser.textRenderer))));
      return `<table>\n<thead>\n${row(header)}</thead>\n<tbody>${body.join('')}</tbody></table>\n`;
    },
  },
});

/**
 * A guide's section headed "En français" is in French to the end of the section, so a screen reader reads it with
 * a French voice (WCAG 3.1.2, language of parts).
 */
const inFrench = (html: string) =>
  html.replace(/<h2 id="en-français">[\s\S]*?(?=<h2 |$)/, (section) => `<section lang="fr">\n${section}</section>\n`);

/** Where a guide names this server's origin (`{{base_url}}`): kept through rendering, filled in per request. */
export const BASE_URL = '{{base_url}}';

/** A page as served to a request that came to `origin`. */
export type DocsPage = (origin: string) => StaticAsset;

/**
 * One guide from Markdown into a complete, accessible HTML page with the navigation and the inline stylesheet,
 * rendered once. A page that names the origin differs by it, and so does its validator.
 */
export function renderPage(slugOfPage: string, title: string, source: string): DocsPage {
  const body = inFrench(markdown.parse(source, { async: false }));
  const link = (href: string, label: string, current: boolean) =>
    `<a href="${href}"${current ? ' aria-current="page"' : ''}>${escapeXml(label)}</a>`;
  const nav = [
    link('/docs', 'Docs', slugOfPage === 'index'),
    ...guides.map((guide) => link(`/docs/${guide.slug}`, guide.title, guide.slug === slugOfPage)),
    link('/v1/docs', 'API reference', false),
    link('/v1/openapi.json', 'OpenAPI document', false),
  ].join('\n');
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeXml(title)} · Nature Profile API</title>
<style>${STYLESHEET}</style>
</head>
<body>
<header><nav aria-label="Documentation">
${nav}
</nav></header>
<main>
${body}</main>
<footer>Nature Profile API documentation, served by the API itself.</footer>
</body>
</html>
`;
  const asset = (body: string) =>
    staticAsset(body, 'text/html; charset=utf-8', { 'content-security-policy': CONTENT_SECURITY_POLICY, 'referrer-policy': 'no-referrer' });
  const parts = html.split(BASE_URL);
  if (parts.length === 1) {
    const fixed = asset(html);
    return () => fixed;
  }
  // A server is nearly always reached at one origin: the last page made is kept, so a request does not hash it again.
  let last: { origin: string; page: StaticAsset } | undefined;
  return (origin) => {
    if (last?.origin !== origin) last = { origin, page: asset(parts.join(escapeXml(origin))) };
    return last.page;
  };
}
