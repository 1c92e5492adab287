import type { Career, Catalogue, SearchQuery } from './catalogue.js';

// STAND-IN for helper 2's title search (issue 43, SEARCH part): same signature, minimal behaviour (every query word a
// lower-case substring of the title; no query: by title). The merge keeps the owner's file.

/** The careers matching a query's filters and words. */
export function titleSearch(catalogue: Catalogue): (query: SearchQuery) => readonly Career[] {
  const zones = new Map(catalogue.occupations.map((occupation) => [occupation.code, occupation.jobZone]));
  const byTitle = [...catalogue.careers].sort((a, b) => a.title.localeCompare(b.title) || a.id.localeCompare(b.id));
  return ({ query, jobZones, occupationCode }) => {
    const words = (query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    return byTitle.filter((career) => {
      const zone = zones.get(career.occupationCode) ?? null;
      if (occupationCode !== undefined && career.occupationCode !== occupationCode) return false;
      if (jobZones !== undefined && (zone === null || !jobZones.includes(zone))) return false;
      return words.every((word) => career.title.toLowerCase().includes(word));
    });
  };
}
