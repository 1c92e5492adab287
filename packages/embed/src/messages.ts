// What the element says, in its own words: the API's `detail` is written for the developer who called it,
// while the person in front of the page needs to know whether to wait, and the site owner what to fix.
// Free of DOM types, so the unit tests run it under Node.

import { type ApiError, closedOutcome, isRetryable } from './api.js';

/** The ending's heading, once all 76 answers are in. */
export const DONE_MESSAGE = 'Thank you: all 76 answers are in.';

/** The heading of the person's result, where the caller lets them see it. */
export const RESULT_HEADING = 'Your result';

/** When the result could not be shown in time: the caller will tell the person. */
export const RESULT_ELSEWHERE = 'Your result is not ready yet. It will reach you another way.';

/** The countdown beside a failure the element retries by itself; 0 while the retry is under way. */
export const retryText = (seconds: number) => (seconds > 0 ? `Retrying in ${seconds} s…` : 'Retrying now…');

/** Beside a failure the element has given up on: what the site owner quotes when asking for help. */
export const referenceText = (code: string, requestId: string | null) =>
  `Error code ${code}${requestId === null ? '' : `, request ${requestId}`}.`;

/** What the element shows for a failure; `pageOrigin` is the origin of the page it is in. */
export function explain(error: ApiError, pageOrigin: string): string {
  if (error.code === 'network_error') return error.detail;
  if (isRetryable(error)) {
    return error.status === 429 ? 'The Nature Profile API is busy just now.' : 'The Nature Profile API could not answer just now.';
  }
  // Its detail already says, in plain words, that this assessment no longer takes answers.
  if (closedOutcome(error) === 'not_open') return error.detail;
  switch (error.code) {
    case 'unauthenticated':
      return (
        "The Nature Profile API refused this page's publishable key or client secret. The site owner must give the page a current " +
        'publishable key (a revoked or rotated key no longer works) and the client secret of this assessment.'
      );
    case 'insufficient_scope':
      return error.required_scope !== undefined
        ? `The Nature Profile API refused this page: its publishable key lacks the ${error.required_scope} scope. ` +
            'The site owner must give the page a publishable key with that scope.'
        : `The Nature Profile API refused this page: its publishable key may not be used on ${pageOrigin}. ` +
            'The site owner must give the page a publishable key that allows this origin.';
    case 'not_found':
      return (
        'The Nature Profile API does not know this assessment. The site owner must check the subject-id and assessment-id of the ' +
        'page, and that its publishable key is of the same environment (test or live) as the assessment.'
      );
    default:
      return error.detail;
  }
}
