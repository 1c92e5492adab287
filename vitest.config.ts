import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // One test file per core, not vitest's one fewer: most files wait on the servers, processes and brokers they start,
    // so a single worker on 2 cores left one idle (3 process files on a loaded 2-core machine: 165 s with 1, 109 s with 2).
    maxWorkers: availableParallelism(),
    globalSetup: ['test/support/build-embed.ts'],
    // These only stop a hung test. Process tests start real servers and the operator command, which on a 2-core
    // machine with two files running and other work beside them took over 30 s; a bound that load can reach is a
    // timing assertion, so it is far above that.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // expect.poll waits on a condition; its timeout only bounds a failure, so it is generous (vitest's default is
    // 1 s, which a busy machine can outlast for a condition that does come).
    expect: { poll: { timeout: 20_000 } },
  },
});
