import type { FastifyRequest } from 'fastify';
import { ProblemError } from '../../http/problem.js';
import { type EnvironmentSegment, environmentOfSegment } from '../context.js';
import { type Html, html } from '../html.js';

/** The environment a page's address names; any other segment is a page that does not exist. */
export function segmentParam(request: FastifyRequest): EnvironmentSegment {
  const segment = (request.params as { segment?: string }).segment ?? '';
  if (!Object.hasOwn(environmentOfSegment, segment)) throw new ProblemError('not_found', 'There is no such page.');
  return segment as EnvironmentSegment;
}

/** Sandbox | Production, for the sections that belong to one environment. */
export function environmentTabs(current: EnvironmentSegment, section: 'webhooks' | 'events' | 'requests' | 'usage'): Html {
  const tab = (segment: EnvironmentSegment, label: string) =>
    html`<a href="/dashboard/${segment}/${section}"${segment === current ? html` aria-current="page"` : ''}>${label}</a>`;
  return html`<nav class="tabs" aria-label="Environment">${tab('sandbox', 'Sandbox')}${tab('production', 'Production')}</nav>`;
}
