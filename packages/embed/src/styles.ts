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
[part="done"] {
  color: var(--_text);
  border-color: color-mix(in srgb, var(--_accent) 40%, transparent);
  background: color-mix(in srgb, var(--_accent) 10%, var(--_background));
  font-weight: 600;
}
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
fieldset:disabled { opacity: 0.7; }
/* Floated, the legend sits inside the card like any heading instead of cutting its border. */
legend {
  float: left;
  width: 100%;
  padding: 0;
  margin: 0 0 0.75rem;
  font-weight: 600;
  overflow-wrap: break-word;
}
.options { clear: both; display: flex; flex-wrap: wrap; gap: 0.5rem; }
/* Five in a row where there is room, the radio above its label like a printed scale. */
[part="option"] {
  flex: 1 1 6.5rem;
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
  overflow-wrap: break-word;
  cursor: pointer;
  transition: background-color 0.15s ease, border-color 0.15s ease;
}
[part="option"]:hover { border-color: var(--_accent); }
[part="option"]:has(input:checked) {
  border-color: var(--_accent);
  background: color-mix(in srgb, var(--_accent) 12%, var(--_background));
}
fieldset:disabled [part="option"] { cursor: default; }
input {
  flex: none;
  width: 1.15rem;
  height: 1.15rem;
  margin: 0;
  accent-color: var(--_accent);
  cursor: inherit;
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
@media (prefers-reduced-motion: reduce) {
  * { transition: none !important; }
}
`;
