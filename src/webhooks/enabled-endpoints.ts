import type { WebhookEndpoint } from '../domain/webhook-endpoint.js';
import type { ReadModelStore } from '../ports/read-models.js';

/** Every enabled webhook endpoint of the environment, as the read models hold them: a page of 100 at a time. */
export async function enabledEndpoints(readModels: ReadModelStore): Promise<WebhookEndpoint[]> {
  const endpoints: WebhookEndpoint[] = [];
  let startingAfter: string | undefined;
  for (;;) {
    const page = await readModels.list('webhook_endpoints', {
      where: { status: 'enabled' },
      limit: 100,
      ...(startingAfter !== undefined && { startingAfter }),
    });
    endpoints.push(...page.data);
    if (!page.hasMore) return endpoints;
    startingAfter = page.data.at(-1)!.id;
  }
}
