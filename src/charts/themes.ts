import type { Band } from '../scoring/narratives-v1.js';

export const chartThemes = ['light', 'dark'] as const;
export type ChartTheme = (typeof chartThemes)[number];

/** The colours of a theme; the unit tests hold every pair that meets to WCAG AA (4.5:1 for text, 3:1 for graphics). */
export interface Palette {
  background: string;
  /** Titles, labels, values, narratives. */
  ink: string;
  /** The explanatory line and the scale's numbers. */
  muted: string;
  /** The score bar, drawn over the band shading. */
  bar: string;
  /** The outline of each 0..1 track, which shows where the scale ends against the background. */
  edge: string;
  /** The shading of the track's stretch of each band: the higher the band, the further from the background. */
  bands: Readonly<Record<Band, string>>;
}

export const palettes: Readonly<Record<ChartTheme, Palette>> = {
  light: {
    background: '#ffffff',
    ink: '#1b1f24',
    muted: '#4b5563',
    bar: '#1d4f91',
    edge: '#6b7785',
    bands: { low: '#f0f3f7', medium_low: '#e3e8ef', medium: '#d6dde7', medium_high: '#c9d2df', high: '#bcc7d7', very_high: '#afbccf' },
  },
  dark: {
    background: '#0f1419',
    ink: '#e6edf3',
    muted: '#a4afbb',
    bar: '#6cb6ff',
    edge: '#7d8a99',
    bands: { low: '#19202a', medium_low: '#202834', medium: '#27313e', medium_high: '#2e3948', high: '#354252', very_high: '#3c4a5c' },
  },
};
