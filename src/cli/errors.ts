/** Exit statuses of `nature`. */
export const exitStatus = {
  ok: 0,
  /** The command could not do its work: no store in the data directory, no such key, a store locked. */
  failed: 1,
  /** The command line is wrong: an unknown option, a missing or invalid value. Commander's own errors too. */
  usage: 2,
} as const;

/** The command could not do its work; its message is one line for the operator. */
export class CliError extends Error {
  override readonly name = 'CliError';
}

/** The command line is wrong in a way commander cannot see (a pk key with nature:write, say). */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
