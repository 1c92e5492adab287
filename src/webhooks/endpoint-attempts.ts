import type { WebhookDelivery } from '../ports/collections.js';
import type { ReadModelStore } from '../ports/read-models.js';

/**
 * An endpoint's attempts, newest first, read a page of 100 at a time until a page ends before `since` (ids, made as
 * each attempt is recorded, order them by time) or `max` are read.
 */
export async function attemptsSince(
  readModels: ReadModelStore,
  endpointId: string,
  since: string,
  max: number,
): Promise<WebhookDelivery[]> {
  const attempts: WebhookDelivery[] = [];
  const where = { endpoint_id: endpointId };
  for (let page = await readModels.list('webhook_deliveries', { limit: 100, where }); ; ) {
    attempts.push(...page.data);
    const last = page.data.at(-1);
    if (!page.hasMore || last === undefined || last.attempted_at < since || attempts.length >= max) return attempts;
    page = await readModels.list('webhook_deliveries', { limit: 100, where, startingAfter: last.id });
  }
}
