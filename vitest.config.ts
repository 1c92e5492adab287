import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One test file per core, not vitest's one fewer: most files wait on the servers, processes and brokers they start,
    // so a single worker on 2 cores left one idle (3 process files on a loaded 2-core machine: 165 s with 1, 109 s with 2).
    maxWorkers: availableParallelism(),
    globalSetup: ['test/support/build-embed.ts'],
    // Process tests start real servers and the operator command; give them room on a 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // expect.poll waits on a condition; its timeout only bounds a failure, so it is generous (vitest's default is
    // 1 s, which a busy machine can outlast for a condition that does come).
    expect: { poll: { timeout: 20_000 } },
  },
});
