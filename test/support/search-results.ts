import type { Career, SearchResults } from '../../src/careers/catalogue.js';

/** Every career of a search's results, in their order: one page as long as they are. */
export const everyResult = (results: SearchResults): Career[] => results.page({ limit: Number.MAX_SAFE_INTEGER })!.careers;
