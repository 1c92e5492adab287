import { escapeXml } from '../charts/svg-markup.js';

/** Markup that is already safe: what `html` returns, and the only thing it inserts unescaped. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

type Value = Html | string | number | boolean | null | undefined | readonly Value[];

function render(value: Value): string {
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join('');
  if (value === null || value === undefined || value === false) return '';
  // The templates quote every attribute value with double quotes, which escapeXml covers.
  return escapeXml(String(value));
}

/**
 * The dashboard's only way to make markup: every interpolated value is escaped unless it is itself `html`, so a
 * key named `<script>` is shown as text. Lists are joined; null, undefined and false leave nothing.
 */
export function html(strings: TemplateStringsArray, ...values: Value[]): Html {
  let text = strings[0]!;
  values.forEach((value, index) => {
    text += render(value) + strings[index + 1]!;
  });
  return new Html(text);
}
