/**
 * The request log: one record per API request an environment answered, for its developers (the dashboard's Requests
 * page, `nature logs tail`), never for callers of the API. One store per environment, written in batches off the
 * requests' path (src/http/request-recorder.ts), pruned past its retention by the leader.
 */

/** One answered request, as kept: nothing personal in it (src/http/request-record.ts says what is left out and how). */
export interface RequestRecord {
  /** The request id the answer carried (`request-id`, and `request_id` in a problem body). */
  id: string;
  /** When it arrived, ms since the epoch. */
  at: number;
  method: string;
  /** The route it matched (`/v1/nature/subjects/:id`); null for a path no route answers. */
  route: string | null;
  /** The path as asked, query included, with values that could be personal replaced by their names. */
  path: string;
  status: number;
  /** From its arrival to its answer sent, in ms. */
  duration_ms: number;
  /** The key that authenticated it; null when none did (a refused or unknown key). */
  key_id: string | null;
  /** The key as sent, by its prefix and last four characters (`test_sk_…Ab12`): what tells keys apart. */
  key_hint: string | null;
  idempotency_key: string | null;
  /** The body's outline: its fields, each value that could be personal replaced by the field's name. */
  request_body: string | null;
  /** For a status of 400 or more, the problem+json body as sent, less any value that came from the request's personal fields. */
  problem: string | null;
}

/** What a list keeps; every part optional. */
export interface RequestFilter {
  /** 2, 3, 4 or 5: the status's first digit. */
  statusClass?: number;
  /** A prefix of the path as kept, or a route exactly (`/v1/nature/subjects/:id`). */
  path?: string;
  keyId?: string;
  /** Inclusive, ms since the epoch. */
  since?: number;
  /** Exclusive, ms since the epoch. */
  until?: number;
}

export interface RequestPage {
  /** Newest first: by id, whose ULID is its arrival on the replica that answered it (ordered within a process). */
  data: RequestRecord[];
  hasMore: boolean;
}

export interface RequestLogStore {
  /** Keeps the records, in one transaction; a record whose id is kept already is left as it is. */
  append(records: readonly RequestRecord[]): Promise<void>;
  /** Newest first, `limit` at most, after the request id `before` (a page's last) when given. */
  list(filter: RequestFilter, page: { limit: number; before?: string }): Promise<RequestPage>;
  get(id: string): Promise<RequestRecord | undefined>;
  /** Removes the records from before `cutoff` (ms since the epoch); answers how many went. */
  prune(cutoff: number): Promise<number>;
  close(): Promise<void>;
}

/** A route kept as a filter's path: it names a parameter, which no concrete path does. */
export const isRoute = (path: string) => path.includes('/:');
