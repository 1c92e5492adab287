import type { StartedTestContainer } from 'testcontainers';

/** Where a server-backed contract suite runs: a URL, a container, or nowhere (and why). */
export type ServerTarget = { url: string; source: string; stop(): Promise<void> } | { url?: undefined; reason: string };

async function containerRuntime(): Promise<boolean> {
  try {
    const { getContainerRuntimeClient } = await import('testcontainers');
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

/**
 * The server for a suite: the URL in `variable` when set, else a testcontainers container when a Docker
 * engine answers, else none, said loudly. A suite without a server is skipped, never counted as passed.
 */
export async function serverTarget(
  name: string,
  variable: string,
  container: () => Promise<{ url: string; container: StartedTestContainer }>,
): Promise<ServerTarget> {
  const given = process.env[variable];
  if (given) return { url: given, source: `${variable}=${given}`, stop: async () => undefined };
  if (await containerRuntime()) {
    const started = await container();
    return { url: started.url, source: 'a testcontainers container', stop: async () => void (await started.container.stop()) };
  }
  const reason = `no ${name} server: ${variable} is not set and no Docker engine answers for testcontainers`;
  console.error(
    `\n!!! ${name.toUpperCase()} CONTRACT TESTS SKIPPED: ${reason}.\n` +
      `!!! Run them with ${variable}=… npm test (see CONTRIBUTING.md, "Running the contract suites against real servers"). Skipped, never counted as passed.\n`,
  );
  return { reason };
}
