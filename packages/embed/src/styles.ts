// The component's shadow CSS. Every colour, the font and the radius come from a --nature-* custom property
// with a calm default, so a host page themes it without reaching inside; ::part() does the rest.

export const styles = `
:host {
  --_font: var(--nature-font, system-ui, -apple-system, "Segoe UI", Roboto, sans-serif);
  --_text: var(--nature-text, #1f2a30);
  --_background: var(--nature-background, #ffffff);
  --_accent: var(--nature-accent, #2f6f5e);
  --_border: var(--nature-border, #d4dcd8);
  --_radius: var(--nature-radius, 12px);
  --_focus: var(--nature-focus-ring, #1a5fb4);
  /* Radio rings: at least 3:1 against the background (the card borders are decoration and may be paler). */
  --_control: color-mix(in srgb, var(--_text) 65%, var(--_background));
  display: block;
  font-family: var(--_font);
  font-size: 1rem;
  line-height: 1.5;
  color: var(--_text);
  background: var(--_background);
}
*, *::before, *::after { box-sizing: border-box; }
[hidden] { display: none !important; }

.top {
  position: sticky;
  top: 0;
  z-index: 1;
  background: var(--_background);
}
.progress {
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: 0.5rem 1rem;
  padding: 0.75rem 0;
  margin-bottom: 0.5rem;
  box-shadow: 0 1px 0 var(--_border);
}
[part="progress"] { font-weight: 600; white-space: nowrap; }
progress {
  flex: 1 1 10rem;
  height: 0.5rem;
  appearance: none;
  border: 0;
  border-radius: 999px;
  background: color-mix(in srgb, var(--_border) 60%, var(--_background));
  overflow: hidden;
}
progress::-webkit-progress-bar { background: transparent; }
progress::-webkit-progress-value { background: var(--_accent); border-radius: 999px; transition: width 0.2s ease; }
progress::-moz-progress-bar { background: var(--_accent); border-radius: 999px; }

.message {
  margin: 0.5rem 0 1rem;
  padding: 0.75rem 1rem;
  border-radius: var(--_radius);
  border: 1px solid color-mix(in srgb, currentColor 25%, transparent);
}
[part="error"] { color: #8a1c14; background: #fbeeec; }
[part="error"] p { margin: 0; }
[part="error"] p + p { margin-top: 0.35rem; }
.retry { font-weight: 600; font-variant-numeric: tabular-nums; }
.reference { font-size: 0.875rem; overflow-wrap: anywhere; }
/* Whatever is scrolled into view (an item, the ending, the result) lands below the sticky header: --_top is its
   height, measured as it changes (a failure shown in it, a progress line that wraps). */
fieldset, .ending, .result { scroll-margin-top: calc(var(--_top, 4.5rem) + 0.75rem); }
/* The ending, below the answers. */
.ending {
  margin: 1rem 0;
  padding: 1.25rem;
  border: 1px solid color-mix(in srgb, var(--_accent) 40%, transparent);
  border-radius: var(--_radius);
  background: color-mix(in srgb, var(--_accent) 10%, var(--_background));
}
[part="done-heading"] { margin: 0; font-size: 1.25rem; line-height: 1.3; }
/* Focused by script only, to be read out: no ring, as it cannot be operated. */
[part="done-heading"]:focus { outline: none; }
/* The result: the API's chart, as wide as the component, on its own light or dark ground. */
.result { margin-top: 1rem; }
[part="result-heading"] { margin: 0 0 0.75rem; font-size: 1.125rem; line-height: 1.3; }
[part="result-heading"]:focus { outline: none; }
.result svg { display: block; max-width: 100%; height: auto; border-radius: var(--_radius); }
.result-elsewhere { margin: 0.75rem 0 0; }
.loading { color: color-mix(in srgb, var(--_text) 70%, var(--_background)); }

fieldset {
  margin: 0 0 0.75rem;
  padding: 1rem 1.25rem 1.1rem;
  min-width: 0;
  border: 1px solid var(--_border);
  border-radius: var(--_radius);
  background: var(--_background);
  transition: border-color 0.2s ease;
}
fieldset[data-answered] { border-color: color-mix(in srgb, var(--_accent) 45%, var(--_border)); }
/* Floated, the legend sits inside the card like any heading instead of cutting its border. */
legend {
  float: left;
  width: 100%;
  padding: 0;
  margin: 0 0 0.75rem;
  font-weight: 600;
  overflow-wrap: break-word;
}
.options { clear: both; display: flex; gap: 0.5rem; }
/* Five in a row where there is room, the radio above its label like a printed scale. Each is as wide as its
   label and shares the rest, so the longer labels keep to one line where the row allows; where it does not,
   a label breaks into balanced lines ("Not at all / like me"), never leaving one word alone. */
[part="option"] {
  flex: 1 1 auto;
  min-width: 0;
  min-height: 44px;
  display: flex;
  flex-direction: column;
  align-items: center;
  justify-content: flex-start;
  gap: 0.4rem;
  padding: 0.6rem 0.5rem;
  border: 1px solid var(--_border);
  border-radius: calc(var(--_radius) * 0.75);
  font-size: 0.925rem;
  line-height: 1.3;
  text-align: center;
  text-wrap: balance;
  overflow-wrap: break-word;
  cursor: pointer;
  transition: background-color 0.15s ease, border-color 0.15s ease;
}
[part="option"]:hover { border-color: var(--_accent); }
/* The chosen answer: a doubled accent border, a tint and a filled radio (not bold: the wider text would shift
   the row), the same once the answers are sent (disabled), so the person can still read them: no fading. */
[part="option"]:has(input:checked) {
  border-color: var(--_accent);
  box-shadow: inset 0 0 0 1px var(--_accent);
  background: color-mix(in srgb, var(--_accent) 12%, var(--_background));
}
fieldset:disabled [part="option"] { cursor: default; }
fieldset:disabled [part="option"]:hover:not(:has(input:checked)) { border-color: var(--_border); }
/* Drawn, not native: a disabled native radio turns pale grey whatever the accent colour. */
input {
  flex: none;
  appearance: none;
  width: 1.15rem;
  height: 1.15rem;
  margin: 0;
  border: 2px solid var(--_control);
  border-radius: 50%;
  background: var(--_background);
  cursor: inherit;
}
input:checked {
  border-color: var(--_accent);
  background: var(--_accent);
  box-shadow: inset 0 0 0 3px var(--_background);
}
input:focus-visible { outline: 3px solid var(--_focus); outline-offset: 2px; }
[part="option"]:has(input:focus-visible) { border-color: var(--_focus); box-shadow: 0 0 0 1px var(--_focus); }
.note { clear: both; margin: 0.6rem 0 0; font-size: 0.875rem; color: color-mix(in srgb, var(--_text) 70%, var(--_background)); }

/* On a phone the five answers stack as full-width rows. (Not a container query: inline-size containment
   would collapse the element to nothing inside a host's flex or shrink-to-fit layout.) */
@media (max-width: 40rem) {
  .options { flex-direction: column; }
  [part="option"] { flex: none; flex-direction: row; gap: 0.6rem; padding: 0.55rem 0.75rem; text-align: start; }
  fieldset { padding: 0.9rem 0.9rem 1rem; }
}
/* One statement per screen: the others are out of the layout, so Tab and screen readers meet only the one shown.
   Sideways touches are the element's (swipes), up and down still scroll the page. */
[data-layout="single"] fieldset:not([data-current]) { display: none; }
[data-layout="list"] .position, [data-layout="list"] .pager { display: none; }
[data-layout="single"] .items { touch-action: pan-y pinch-zoom; }
[data-layout="single"] legend { font-size: 1.2rem; line-height: 1.4; }
/* Large targets (WCAG 2.5.5, 44 by 44 px at least): full-width rows. */
[data-layout="single"] .options { flex-direction: column; gap: 0.6rem; }
[data-layout="single"] [part="option"] {
  flex: none;
  flex-direction: row;
  align-items: center;
  min-height: 3.25rem;
  gap: 0.75rem;
  padding: 0.75rem 1rem;
  font-size: 1.05rem;
  text-align: start;
}
.position { margin: 0 0 0.5rem; font-weight: 600; }
.pager { display: flex; justify-content: space-between; gap: 0.75rem; }
[part="pager-button"] {
  min-width: 6rem;
  min-height: 2.75rem;
  padding: 0.5rem 1.25rem;
  font: inherit;
  font-weight: 600;
  color: var(--_accent);
  background: var(--_background);
  border: 2px solid var(--_accent);
  border-radius: calc(var(--_radius) * 0.75);
  cursor: pointer;
}
[part="pager-button"]:focus-visible { outline: 3px solid var(--_focus); outline-offset: 2px; }
/* There is no statement before the first or after the last (still focusable, so the focus is never dropped). */
[part="pager-button"][aria-disabled="true"] { color: var(--_control); border-color: var(--_border); cursor: default; }

@media (prefers-reduced-motion: reduce) {
  * { transition: none !important; }
}
/* Forced colours drop backgrounds and shadows, the drawn dot with them: the native radio shows the choice there. */
@media (forced-colors: active) {
  input { appearance: auto; }
}
`;
