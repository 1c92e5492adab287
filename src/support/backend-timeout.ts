/** A backend that took longer than its bounded wait. */
export class BackendTimeoutError extends Error {
  override readonly name = 'BackendTimeoutError';
}

/** `work`, or a BackendTimeoutError once `timeoutMs` have passed (the work itself is left to the process's exit). */
export async function within<T>(timeoutMs: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new BackendTimeoutError(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
