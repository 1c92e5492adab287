import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/**
 * Vitest global set-up: bundles the web component from its source before any test, so the served module
 * and the browser tests always run what packages/embed/src says, even in a single-file run after an edit.
 */
export default function setup(): void {
  execFileSync('npm', ['run', '--silent', 'build', '--workspace=packages/embed'], {
    cwd: fileURLToPath(new URL('../..', import.meta.url)),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}
