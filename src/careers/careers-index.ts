import {
  type Career,
  type Catalogue,
  type ConstructProfile,
  catalogueVersion,
  type MatchOptions,
  type Occupation,
  type OccupationMatch,
  type SearchQuery,
  type SearchResults,
} from './catalogue.js';
import { occupationMatcher } from './matching.js';
import { titleSearch } from './title-search.js';

/** A catalogue made ready to answer the careers routes: lookups by id and code, the search and the matcher. */
export interface CareersIndex {
  /** `catalogue_version`: `onet-27.0/careers-map-v1`. */
  readonly version: string;
  /** The O*NET release, e.g. "27.0", which the attribution names. */
  readonly release: string;
  career(id: string): Career | undefined;
  occupation(code: string): Occupation | undefined;
  /** An occupation's careers, its occupation title first (the catalogue's order). */
  titlesOf(code: string): readonly Career[];
  search(query: SearchQuery): SearchResults;
  match(person: ConstructProfile, options: MatchOptions): OccupationMatch[];
}

/** Indexes a catalogue once, when it is loaded; every request then reads the maps. */
export function indexCatalogue(catalogue: Catalogue): CareersIndex {
  const careers = new Map(catalogue.careers.map((career) => [career.id, career]));
  const occupations = new Map(catalogue.occupations.map((occupation) => [occupation.code, occupation]));
  const titles = new Map<string, Career[]>();
  for (const career of catalogue.careers) {
    const list = titles.get(career.occupationCode) ?? [];
    list.push(career);
    titles.set(career.occupationCode, list);
  }
  return {
    version: catalogueVersion(catalogue),
    release: catalogue.release,
    career: (id) => careers.get(id),
    occupation: (code) => occupations.get(code),
    titlesOf: (code) => titles.get(code) ?? [],
    search: titleSearch(catalogue),
    match: occupationMatcher(catalogue),
  };
}
