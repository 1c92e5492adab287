import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from '../../test/support/processes.js';
import { root, tempDir } from './paths.js';

export interface Process {
  url: string;
  pid: number;
  /** Peak resident set of the process so far (VmHWM), in kB. */
  peakRssKb(): number | undefined;
  /** CPU time the process has used so far (user + system), in µs; undefined off Linux or once it has gone. */
  cpuMicros(): number | undefined;
  /** What it wrote to stdout and stderr (its log). */
  output(): string;
  /** Stops it (SIGTERM) and resolves with everything it wrote, its last lines included. */
  stop(): Promise<string>;
}

/** A line of /proc/<pid>/status in kB (Linux); undefined elsewhere or once the process has gone. */
export function procStatusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Clock ticks per second of /proc's times (USER_HZ), read once. */
let ticksPerSecond: number | undefined;

/** utime + stime of /proc/<pid>/stat in µs (Linux): to USER_HZ's resolution, 10 ms on most kernels. */
export function procCpuMicros(pid: number): number | undefined {
  try {
    // The command name (field 2) is in parentheses and may hold spaces: count fields after its closing one.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    // Fields 14 and 15 (utime, stime) are the 12th and 13th after the name.
    return ((Number(fields[11]) + Number(fields[12])) / ticksPerSecond) * 1e6;
  } catch {
    return undefined;
  }
}

/** The benchmark's environment without the service's settings: a server gets only those it is given. */
function inherited(): NodeJS.ProcessEnv {
  const setting = /^(NATURE_\w+|NATS_URL|EVENTSTORE_URL|MONGODB_URL|POSTGRES_URL|LOG_LEVEL|PORT|HOST)$/;
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !setting.test(name)));
}

/**
 * Starts an entry point of the checkout as its own process (a TypeScript one through `node --import tsx`, as the
 * tests run it; a compiled one with plain `node`) and waits until `readyPath` answers 200. Its output goes to a file, not a pipe, so the
 * benchmark's own event loop does not pay for reading the server's log lines.
 */
export async function startProcess(entry: string, env: Record<string, string>, readyPath: string): Promise<Process> {
  const port = await freePort();
  const logs = tempDir('nature-bench-log-');
  const logPath = join(logs.path, 'output.log');
  const fd = openSync(logPath, 'w');
  // BENCH_CPU_PROF=DIR: each process writes a CPU profile there when it exits (on the benchmark's SIGTERM).
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`] : [];
  const child: ChildProcess = spawn(process.execPath, [...profile, ...(entry.endsWith('.ts') ? ['--import', 'tsx'] : []), entry], {
    cwd: root,
    env: { ...inherited(), ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', fd, fd],
  });
  closeSync(fd);
  const url = `http://127.0.0.1:${port}`;
  const output = () => readFileSync(logPath, 'utf8');
  let exited = false;
  const gone = new Promise<void>((resolve) =>
    child.once('exit', () => {
      exited = true;
      resolve();
    }),
  );
  const deadline = Date.now() + 60_000;
  for (;;) {
    const problem = exited ? 'exited before it was ready' : Date.now() > deadline ? 'was not ready in 60 s' : undefined;
    if (problem !== undefined) {
      const text = output();
      child.kill('SIGKILL');
      logs.cleanup();
      throw new Error(`${entry} ${problem}:\n${text}`);
    }
    const ok = await fetch(`${url}${readyPath}`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  const pid = child.pid!;
  let stopped: Promise<string> | undefined;
  return {
    url,
    pid,
    peakRssKb: () => procStatusKb(pid, 'VmHWM'),
    cpuMicros: () => procCpuMicros(pid),
    output,
    stop() {
      // Once: a second call (a `finally` after a report that stopped it first) gets the same log.
      stopped ??= (async () => {
        if (!exited) {
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await gone;
          clearTimeout(timer);
        }
        const text = output();
        logs.cleanup();
        return text;
      })();
      return stopped;
    },
  };
}
