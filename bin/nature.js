#!/usr/bin/env node
// The operator command, built by `npm ci` (prepare) into dist/.
const entry = new URL('../dist/src/cli/main.js', import.meta.url);
try {
  await import(entry.href);
} catch (error) {
  // A checkout that was never built: one line, not the loader's stack trace.
  if (error?.code !== 'ERR_MODULE_NOT_FOUND' || error.url !== entry.href) throw error;
  process.stderr.write('nature: not built yet: run `npm run build` (npm ci does it) first\n');
  process.exit(1);
}
