export type { NatureEvent, Problem, ProblemCode, paths } from './api.js';
export { createNatureClient, type NatureClient, type NatureClientOptions } from './client.js';
export {
  type FieldError,
  isNatureApiError,
  NatureApiError,
  type NatureApiErrorOf,
  type NatureErrorCode,
  UNEXPECTED_RESPONSE,
} from './errors.js';
export type { ListItem, ListPath, ListResult } from './pagination.js';
export type { BodyOf, NatureResources, QueryOf, RequestOptions } from './resources.js';
export { NatureTimeoutError, type RetryOptions } from './retry.js';
export { verifyWebhook, type WebhookHeaders, WebhookVerificationError } from './webhooks.js';
