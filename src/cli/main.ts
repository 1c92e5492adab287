import { exitStatus } from './errors.js';
import { runCli } from './run.js';

// The `nature` process (bin/nature.js runs the built one): the command line with this process's streams and environment.
const status = await runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env });
// A failure ends the process at once, whatever a driver still holds open; success ends once the work has.
if (status !== exitStatus.ok) process.exit(status);
