import type { Environment } from '../domain/api-keys.js';
import type { PlanChoice, RateLimitOverride } from '../domain/plans.js';
import type { ReadModelStore } from '../ports/read-models.js';

/** What `nature usage` reads: the usage read models, and the account's plan and keys beside the API keys. */
export interface UsageStores {
  openReadModels(environment: Environment): Promise<ReadModelStore>;
  /** The account's plan: the default while none was set (or there is no account store yet). */
  readPlan(): Promise<PlanChoice>;
  /** Each API key's name, by id. */
  keyNames(): Promise<Map<string, string>>;
  /** NATURE_RATE_LIMIT_*, which replace the plan's figures where set. */
  rateLimit(): RateLimitOverride;
}
