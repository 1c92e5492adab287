export type { NatureEvent, Problem, ProblemCode, paths } from './api.js';
export { type NatureClient, type NatureClientOptions, createNatureClient } from './client.js';
export { type FieldError, type NatureApiErrorOf, type NatureErrorCode, NatureApiError, UNEXPECTED_RESPONSE, isNatureApiError } from './errors.js';
export type { ListItem, ListPath } from './pagination.js';
export type { RetryOptions } from './retry.js';
export { type WebhookHeaders, WebhookVerificationError, verifyWebhook } from './webhooks.js';
