import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { CHART_WIDTHS, renderProfileChart } from '../../charts/profile-chart.js';
import { chartThemes } from '../../charts/themes.js';
import { sendRevalidated } from '../conditional-get.js';
import { problems, skOrPkWithSecret } from '../schemas.js';
import { profileById, profileId } from './profiles.js';

/**
 * Private: a chart is a person's result, for the caller's reader alone, never a shared cache. Five minutes: an
 * erasure or a new rendering reaches a reader soon, and a revalidation after that costs a 304.
 */
const CHART_CACHE_CONTROL = 'private, max-age=300';

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

export function registerProfileChartRoute(app: FastifyInstance): void {
  app.withTypeProvider<ZodTypeProvider>().get(
    '/v1/nature/profiles/:id/chart.svg',
    {
      schema: {
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
      },
      // A page whose assessment was started with result_visible_to_subject draws the person's result with a pk key.
      config: { resultSecret: true },
    },
    async (request, reply) => {
      const profile = await profileById(request.env, request.params.id);
      return sendRevalidated(request, reply, {
        body: renderProfileChart(profile, request.query),
        type: 'image/svg+xml; charset=utf-8',
        headers: { 'cache-control': CHART_CACHE_CONTROL },
      });
    },
  );
}
