import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { Scope } from '../domain/api-keys.js';
import { languages } from '../scoring/languages.js';
import { type CallApi, pathOf } from './api-call.js';
import { asProtocolError } from './tool-results.js';

/** A resource template as the server offers it: registered only for a key that has its scopes (all read). */
export interface NatureResource {
  name: string;
  scopes: readonly Scope[];
  register(server: McpServer, call: CallApi): void;
}

const JSON_TYPE = 'application/json';

/** One variable of a URI template, as the SDK hands it (a list where the template allows several). */
const one = (value: string | string[] | undefined) => (Array.isArray(value) ? value[0] : value) ?? '';

/** What the API answered, as the resource's one content; a refusal as the protocol's error, with the API's problem. */
async function read(uri: URL, mimeType: string, fetch: () => Promise<unknown>): Promise<ReadResourceResult> {
  try {
    const body = await fetch();
    return { contents: [{ uri: uri.href, mimeType, text: typeof body === 'string' ? body : JSON.stringify(body, null, 2) }] };
  } catch (error) {
    throw asProtocolError(error);
  }
}

function template(spec: {
  name: string;
  uri: string;
  title: string;
  description: string;
  mimeType: string;
  list?: () => { uri: string; name: string }[];
  fetch: (call: CallApi, variables: Record<string, string>) => Promise<unknown>;
}): NatureResource {
  return {
    name: spec.name,
    scopes: ['nature:read'],
    register(server, call) {
      const list = spec.list;
      server.registerResource(
        spec.name,
        new ResourceTemplate(spec.uri, {
          list: list && (async () => ({ resources: list().map((resource) => ({ ...resource, mimeType: spec.mimeType })) })),
        }),
        { title: spec.title, description: spec.description, mimeType: spec.mimeType },
        (uri, variables) =>
          read(uri, spec.mimeType, () =>
            spec.fetch(call, Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, one(value)]))),
          ),
      );
    },
  };
}

export const resources: readonly NatureResource[] = [
  template({
    name: 'item_bank',
    uri: 'nature://items/{language}',
    title: 'Item bank',
    description: 'The 76 statements and the five answer labels, in English (en) or French (fr).',
    mimeType: JSON_TYPE,
    list: () => languages.map((language) => ({ uri: `nature://items/${language}`, name: `Item bank (${language})` })),
    fetch: (call, { language }) => call({ method: 'GET', path: '/v1/nature/items', query: { language } }),
  }),
  template({
    name: 'latest_profile',
    uri: 'nature://subjects/{subject_id}/profile',
    title: "A subject's latest profile",
    description: "The profile of the subject's latest completed assessment: 9 Nature and 10 Intelligence scores with narratives.",
    mimeType: JSON_TYPE,
    fetch: (call, { subject_id }) => call({ method: 'GET', path: pathOf`/v1/nature/subjects/${subject_id!}/profile` }),
  }),
  template({
    name: 'profile',
    uri: 'nature://profiles/{profile_id}',
    title: 'A profile',
    description: 'A profile by its id.',
    mimeType: JSON_TYPE,
    fetch: (call, { profile_id }) => call({ method: 'GET', path: pathOf`/v1/nature/profiles/${profile_id!}` }),
  }),
  template({
    name: 'profile_chart',
    uri: 'nature://profiles/{profile_id}/chart.svg',
    title: "A profile's chart",
    description: 'The profile as an accessible SVG bar chart, in the profile language, the constructs in alphabetical order.',
    mimeType: 'image/svg+xml',
    fetch: (call, { profile_id }) => call({ method: 'GET', path: pathOf`/v1/nature/profiles/${profile_id!}/chart.svg` }),
  }),
];
