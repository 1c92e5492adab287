import type { Intelligence, Nature } from '../scoring/constructs.js';

/**
 * The careers catalogue (contract, "Careers (v1.0.5)"): the occupations of an O*NET release and their distinct
 * titles, each occupation with the construct profile a versioned mapping derives from the release's descriptors.
 * Reference data shared by both environments; imported whole by the operator, swapped whole, read from memory.
 */

/** How much an occupation calls on each of the 19 constructs, 0..1, keys alphabetical as every output. */
export interface ConstructProfile {
  natures: Record<Nature, number>;
  intelligences: Record<Intelligence, number>;
}

export type JobZone = 1 | 2 | 3 | 4 | 5;

export interface Occupation {
  /** O*NET-SOC code, e.g. "29-1141.00". */
  code: string;
  title: string;
  description: string;
  jobZone: JobZone | null;
  /** The first letters of its highest RIASEC interests, highest first, e.g. "SIA"; "" without interest data. */
  riasec: string;
  /** Codes of its related occupations, in the release's order. */
  related: string[];
  /** Null when the release lacks the descriptors to derive one (see Catalogue.unprofiled); never matched then. */
  profile: ConstructProfile | null;
}

export type TitleKind = 'occupation' | 'alternate' | 'reported';

/** One distinct title of an occupation: what `GET /v1/careers` lists. */
export interface Career {
  /** `car_` + a part derived from the occupation code and the title, so the same title keeps its id across imports. */
  id: string;
  title: string;
  titleKind: TitleKind;
  occupationCode: string;
}

export interface Catalogue {
  /** The O*NET release, e.g. "27.0". */
  release: string;
  /** The mapping that derived the profiles, e.g. "careers-map-v1". */
  mapping: string;
  /** Occupations by code, ascending. */
  occupations: Occupation[];
  /** Careers by occupation code, then occupation title first, then title. */
  careers: Career[];
  /** Occupations without a profile, and why (e.g. "no Interests, Work Styles or Skills ratings"). */
  unprofiled: { code: string; reason: string }[];
}

/** What every careers response carries as `catalogue_version`: `onet-27.0/careers-map-v1`. */
export const catalogueVersion = (catalogue: Pick<Catalogue, 'release' | 'mapping'>): string =>
  `onet-${catalogue.release}/${catalogue.mapping}`;

/** What `GET /v1/careers` filters by; every part optional. */
export interface SearchQuery {
  query?: string;
  jobZones?: readonly JobZone[];
  occupationCode?: string;
}

/** Which page of a search's results: up to `limit` careers after the career `after` (from the first without one), or before `before`. */
export interface ResultsPageRequest {
  limit: number;
  after?: string;
  before?: string;
}

/** A page of a search's results, and whether more lie beyond it the way it was read. */
export interface ResultsPage {
  careers: Career[];
  hasMore: boolean;
}

/**
 * The careers a search found, in its order, read a page at a time: the first page is put in order alone, as most
 * callers read no further. A page next to a career that is not among the results is undefined.
 */
export interface SearchResults {
  page(request: ResultsPageRequest): ResultsPage | undefined;
}

/** How one construct counts in a match: the person's score, the occupation's demand, and its share of the fit. */
export interface ConstructContribution {
  person: number;
  demand: number;
  contribution: number;
}

export interface OccupationMatch {
  occupation: Occupation;
  /** 0..1, deterministic. */
  fit: number;
  explanation: {
    natures: Record<Nature, ConstructContribution>;
    intelligences: Record<Intelligence, ConstructContribution>;
  };
}

export interface MatchOptions {
  jobZones?: readonly JobZone[];
  /** 1..100. */
  limit: number;
}
