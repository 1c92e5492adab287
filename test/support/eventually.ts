/** Polls until `probe` returns a value, for outcomes that arrive asynchronously (scoring). Fails after `ms`. */
export async function eventually<T>(probe: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`nothing arrived within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
