import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/build-embed.ts'],
    // Process tests start real servers and the operator command; give them room on a 2-core machine.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
