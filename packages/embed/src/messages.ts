// What the element shows for a failure, in its own words: the API's `detail` is written (in English) for the
// developer who called it, while the person in front of the page needs to know whether to wait, and the site
// owner what to fix. Free of DOM types, so the unit tests run it under Node.

import { type ApiError, closedOutcome, isRetryable } from './api.js';
import type { Language } from './language.js';
import { words } from './words.js';

/** What the element shows for a failure, in `language`; `pageOrigin` is the origin of the page it is in. */
export function explain(error: ApiError, pageOrigin: string, language: Language): string {
  const say = words[language];
  if (error.code === 'network_error') return say.network;
  if (isRetryable(error)) return error.status === 429 ? say.busy : say.unavailable;
  if (closedOutcome(error) === 'not_open') return say.notOpen(error.assessment_status ?? '', error.detail);
  switch (error.code) {
    case 'unauthenticated':
      return say.unauthenticated;
    case 'insufficient_scope':
      return error.required_scope !== undefined ? say.missingScope(error.required_scope) : say.originRefused(pageOrigin);
    case 'not_found':
      return say.notFound;
    default:
      return say.refused(error.detail);
  }
}
