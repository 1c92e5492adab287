import { exitStatus } from './errors.js';
import { runCli } from './run.js';

// The `nature` process (bin/nature.js runs the built one): the command line with this process's streams and environment.
const status = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  // Read only when asked (--password-stdin): made on first use, so other commands never touch it.
  get stdin() {
    return process.stdin;
  },
});
// A failure ends the process at once, whatever a driver still holds open; success ends once the work has.
if (status !== exitStatus.ok) process.exit(status);
