export interface Timed {
  /** Operations that succeeded. */
  ops: number;
  errors: number;
  firstError: string | undefined;
  seconds: number;
  /** Successful operations per second. */
  perSecond: number;
}

/**
 * `callers` loops, each calling `op` one call after another until `seconds` have passed. Time-boxed
 * rather than counted, so a store 50 times slower than another still takes the same wall time.
 */
export async function timed(seconds: number, callers: number, op: (caller: number) => Promise<unknown>): Promise<Timed> {
  let ops = 0;
  let errors = 0;
  let firstError: string | undefined;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: callers }, async (_, caller) => {
      while (performance.now() < deadline) {
        try {
          await op(caller);
          ops += 1;
        } catch (error) {
          errors += 1;
          firstError ??= error instanceof Error ? error.message : String(error);
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { ops, errors, firstError, seconds: elapsed, perSecond: ops / elapsed };
}
