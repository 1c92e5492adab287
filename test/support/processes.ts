import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** This process's environment without the npm_* settings `npm test` passes down: a reader's terminal, a project outside. */
export const envOutsideNpm = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.toLowerCase().startsWith('npm_')));

/** The operator command as a user runs it, from source, in a process of its own; `stdin`, when given, piped in. */
export function runCliProcess(args: string[], env: Record<string, string>, stdin?: string) {
  return runCliWith(args, env, asUsual, stdin);
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

export interface ServerProcess {
  url: string;
  process: ChildProcess;
  output: () => string;
  /** Resolves with the exit code or signal once the process has gone. */
  exited: Promise<number | string>;
}

/** A process of this checkout running `args` from source (node --import tsx), what it prints kept as it comes. */
export function spawnFromSource(args: string[], env: Record<string, string>, runner: Runner = asUsual) {
  const child = spawn(runner.command, [...runner.prefix, '--import', 'tsx', ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  // 'close', not 'exit': by then its output is read to the end, so a test reading it after `exited` misses nothing.
  const exited = new Promise<number | string>((resolve) => child.once('close', (code, signal) => resolve(code ?? signal ?? 'unknown')));
  return { process: child, output: () => output, exited };
}

/** Below vitest's testTimeout (vitest.config.ts), far above any start-up seen. */
const STARTUP_HUNG_MS = 100_000;

/** Starts `src/server/main.ts` as its own process and waits until it listens. */
export async function startServer(env: Record<string, string>): Promise<ServerProcess> {
  return startServerWith(env, asUsual);
}

/** As `startServer`, run by `runner` (without root's privileges, say). */
export async function startServerWith(env: Record<string, string>, runner: Runner): Promise<ServerProcess> {
  const port = await freePort();
  const {
    process: child,
    output,
    exited,
  } = spawnFromSource(
    ['src/server/main.ts'],
    // The tests' receivers listen on loopback: sandbox deliveries may go there, as on a developer's machine.
    { LOG_LEVEL: 'info', NATURE_WEBHOOK_ALLOW_PRIVATE: 'sandbox', ...env, PORT: String(port), HOST: '127.0.0.1' },
    runner,
  );
  await new Promise<void>((resolve, reject) => {
    // Only a hung start-up ends here (under the test's own timeout, so its output is reported): a 2-core machine
    // running other test files has taken over 20 s to start a server from source.
    const timer = setTimeout(() => {
      // Not left running to write into a directory the test is about to remove.
      child.kill('SIGKILL');
      reject(new Error(`server did not start:\n${output()}`));
    }, STARTUP_HUNG_MS);
    const check = () => {
      if (output().includes('Nature Profile API ready')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', check);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`server exited:\n${output()}`));
    });
  });
  return { url: `http://127.0.0.1:${port}`, process: child, output, exited };
}

/** The servers a test file starts, all killed by `killAll` (in afterEach). */
export function serverPool(env: () => Record<string, string>) {
  const servers: ServerProcess[] = [];
  return {
    async start(): Promise<ServerProcess> {
      const server = await startServer(env());
      servers.push(server);
      return server;
    },
    async kill(server: ServerProcess): Promise<void> {
      server.process.kill('SIGKILL');
      await server.exited;
    },
    async killAll(): Promise<void> {
      for (const server of servers.splice(0)) await this.kill(server);
    },
  };
}

/** A JSON request to a server (a ServerProcess, or anything with its `url`) with a key, as a caller sends it over real HTTP. */
export async function callServer(server: { url: string }, key: string, method: string, path: string, body?: unknown) {
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  // Response bodies are checked field by field; their static type adds nothing.
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

/** Resolves once the server's output matches `pattern` (a log line that says where it is). */
export function waitForOutput(server: ServerProcess, pattern: RegExp): Promise<void> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (!pattern.test(server.output())) return;
      server.process.stdout?.off('data', check);
      resolve();
    };
    server.process.stdout?.on('data', check);
    void server.exited.then(() => reject(new Error(`server exited before printing ${pattern}:\n${server.output()}`)));
    check();
  });
}

/**
 * `src/server/main.ts` run to its end, for start-up that must fail: the exit status and what it printed. `env`
 * gives PORT and HOST; a server that starts after all is stopped after 20 s, with status null.
 */
export function runServerToExit(env: Record<string, string>, runner: Runner = asUsual) {
  const result = spawnSync(runner.command, [...runner.prefix, '--import', 'tsx', 'src/server/main.ts'], {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info', HOST: '127.0.0.1', ...env },
    encoding: 'utf8',
    timeout: 20_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** As `runCliProcess`, run by `runner` (without root's privileges, say). */
export function runCliWith(args: string[], env: Record<string, string>, runner: Runner, stdin?: string) {
  const result = spawnSync(runner.command, [...runner.prefix, '--import', 'tsx', 'src/cli/main.ts', ...args], {
    cwd: root,
    env: { ...process.env, ...env },
    encoding: 'utf8',
    ...(stdin !== undefined && { input: stdin }),
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** How a test process is started: `command`, then `prefix`, then node's arguments. */
export interface Runner {
  command: string;
  prefix: string[];
}

const asUsual: Runner = { command: process.execPath, prefix: [] };

/**
 * A runner under which file permissions apply. Root writes whatever the mode bits say, so as root the
 * process keeps uid 0 (it can still read a checkout nobody else may enter) but drops the capabilities
 * that override them, with util-linux's setpriv; otherwise it is the user running the tests.
 */
export const unprivileged: Runner =
  process.getuid?.() === 0 ? { command: 'setpriv', prefix: ['--bounding-set=-dac_override,-dac_read_search', process.execPath] } : asUsual;
