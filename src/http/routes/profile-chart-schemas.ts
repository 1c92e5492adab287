import type { FastifySchema } from 'fastify';
import { z } from 'zod';
import { CHART_WIDTHS } from '../../charts/profile-chart.js';
import { chartThemes } from '../../charts/themes.js';
import { problems, skOrPkWithSecret } from '../schemas.js';
import { profileId } from './profiles-schemas.js';

// The profile chart route's schema: what it takes and answers, and what the OpenAPI document says of it.

const WIDTH_MESSAGE = `must be a whole number from ${CHART_WIDTHS.min} to ${CHART_WIDTHS.max}, in decimal digits.`;

const chartQuery = z.strictObject({
  theme: z.enum(chartThemes).default('light').describe('The colours: light (the default) or dark; both meet WCAG AA contrast.'),
  width: z
    .string()
    .refine((value) => /^[1-9][0-9]*$/.test(value) && Number(value) >= CHART_WIDTHS.min && Number(value) <= CHART_WIDTHS.max, WIDTH_MESSAGE)
    .transform(Number)
    .default(CHART_WIDTHS.default)
    // On the wire a query value is text; what it means is a whole number, which is what a client should send.
    .meta({
      type: 'integer',
      minimum: CHART_WIDTHS.min,
      maximum: CHART_WIDTHS.max,
      description: `The width in px, ${CHART_WIDTHS.min}..${CHART_WIDTHS.max} (default ${CHART_WIDTHS.default}); the height follows. Narrow charts put each narrative under its bar.`,
    }),
});

/** The opening of a real chart, as the document's example (a whole one is some 20 KB). */
const EXAMPLE_SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" width="960" height="1052" viewBox="0 0 960 1052" ' +
  'aria-labelledby="profile-chart-title" aria-describedby="profile-chart-desc" lang="en" font-family="\'DejaVu Sans\', Verdana, sans-serif">\n' +
  '<title id="profile-chart-title">Nature profile</title>\n…\n</svg>\n';

export const getProfileChartSchema = {
  tags: ['profiles'],
  operationId: 'getProfileChart',
  summary: 'A profile as a chart (SVG)',
  description:
    'The profile drawn on the server as an SVG bar chart: the Natures, then the Intelligences, each in alphabetical order and never ' +
    'ranked, a bar per construct on the 0..1 scale over the shading of its band, the band in words, and the narrative beside its ' +
    'construct (under it on a narrow chart). Accessible (a <title> and <desc>, and a text alternative per bar) and self-contained: ' +
    'it loads nothing. The same profile, theme and width give the same bytes, so the ETag holds; send If-None-Match to revalidate.',
  params: z.strictObject({ id: profileId }),
  querystring: chartQuery,
  response: {
    200: {
      description: 'The chart, an SVG document with its ETag; private to the reader, cached for 5 minutes.',
      content: { 'image/svg+xml': { schema: z.string().meta({ examples: [EXAMPLE_SVG] }) } },
    },
    304: z.null().describe('Not modified: If-None-Match names the ETag of the chart the request would get.'),
    ...problems('profile_not_found', 'subject_erased'),
  },
  security: skOrPkWithSecret,
} satisfies FastifySchema;
