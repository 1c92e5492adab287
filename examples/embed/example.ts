/**
 * The whole example, importable: the API from this checkout on the embedded default, an sk key and a pk key
 * restricted to the page's origin (minted with the operator command), the caller's server, and the webhook
 * endpoint that points at it. `run.ts` runs exactly this; so does test/e2e/embed-browser.test.ts.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { CallerServer } from './caller.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);

export interface ExampleOptions {
  /** The caller server's port (the page is http://localhost:PORT/); 0 picks a free one. Default 3001 (the webhook receiver of the README takes 3000). */
  port?: number;
  /** The API's data directory, kept afterwards; default a fresh temporary one, removed by `stop`. */
  dataDir?: string;
  /** More settings for the API process (NATURE_WEBHOOK_RETRY_SCHEDULE, LOG_LEVEL, …). */
  apiEnv?: Record<string, string>;
}

export interface MintedKey {
  id: string;
  key: string;
}

export interface Example {
  /** The page to open: its origin is the one the pk key allows. */
  pageUrl: string;
  /** The same page on 127.0.0.1: another origin, which the pk key does not allow. */
  otherOriginUrl: string;
  apiUrl: string;
  dataDir: string;
  secretKey: MintedKey;
  publishableKey: MintedKey;
  webhookEndpointId: string;
  caller: CallerServer;
  /** What the API process printed (its log lines). */
  apiOutput: () => string;
  /** Runs the operator command on the example's data directory; resolves with its stdout. */
  cli: (args: string[]) => Promise<string>;
  stop: () => Promise<void>;
}

export async function startExample(options: ExampleOptions = {}): Promise<Example> {
  const temporary = options.dataDir === undefined;
  const dataDir = temporary ? mkdtempSync(join(tmpdir(), 'nature-embed-example-')) : resolve(options.dataDir!);
  mkdirSync(dataDir, { recursive: true });
  const caller = new CallerServer();
  let api: ApiProcess | undefined;
  const stop = async () => {
    await caller.close().catch(() => undefined);
    await api?.stop();
    if (temporary) rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const port = await caller.listen(options.port ?? 3001);
    const origin = `http://localhost:${port}`;
    api = await startApi(dataDir, options.apiEnv ?? {});

    const cli = async (args: string[]) => {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
        cwd: root,
        env: { ...process.env, NATURE_DATA_DIR: dataDir },
      });
      return stdout;
    };
    const mint = async (args: string[]): Promise<MintedKey> => {
      const { id, key } = JSON.parse(await cli(['keys', 'create', '--env', 'test', ...args, '--json'])) as MintedKey;
      return { id, key };
    };
    const secretKey = await mint(['--type', 'sk', '--scope', 'nature:read', '--scope', 'nature:write', '--name', 'embed example server']);
    const publishableKey = await mint(['--type', 'pk', '--scope', 'nature:read', '--name', 'embed example page', '--origin', origin]);

    // The receiver's endpoint, registered with the sk key; its signing secret is shown this once.
    const registered = await fetch(`${api.url}/v1/nature/webhook_endpoints`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secretKey.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: `http://127.0.0.1:${port}/webhooks`, description: 'embed example receiver' }),
    });
    const endpoint = (await registered.json()) as { id: string; secret: string; detail?: string };
    if (registered.status !== 201) throw new Error(`could not register the webhook endpoint: ${registered.status} ${endpoint.detail}`);

    caller.configure({ apiUrl: api.url, secretKey: secretKey.key, publishableKey: publishableKey.key, webhookSecret: endpoint.secret });
    const started = api;
    return {
      pageUrl: `${origin}/`,
      otherOriginUrl: `http://127.0.0.1:${port}/`,
      apiUrl: api.url,
      dataDir,
      secretKey,
      publishableKey,
      webhookEndpointId: endpoint.id,
      caller,
      apiOutput: () => started.output(),
      cli,
      stop,
    };
  } catch (error) {
    const output = api?.output();
    await stop();
    if (output !== undefined && error instanceof Error) error.message += `\nAPI output:\n${output}`;
    throw error;
  }
}

interface ApiProcess {
  url: string;
  process: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

/** `src/server/main.ts` of this checkout in its own process, on a free loopback port; resolves once it listens. */
async function startApi(dataDir: string, env: Record<string, string>): Promise<ApiProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
    cwd: root,
    // Its webhook receiver listens on this machine's loopback.
    env: {
      ...process.env,
      LOG_LEVEL: 'info',
      NATURE_WEBHOOK_ALLOW_PRIVATE: 'sandbox',
      ...env,
      NATURE_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  try {
    await new Promise<void>((ready, fail) => {
      const timer = setTimeout(() => fail(new Error('the API did not start within 30 s')), 30_000);
      const check = () => {
        if (!output.includes('Nature Profile API ready')) return;
        clearTimeout(timer);
        ready();
      };
      child.stdout.on('data', check);
      void exited.then(() => {
        clearTimeout(timer);
        fail(new Error('the API exited at start-up'));
      });
    });
  } catch (error) {
    await stop();
    (error as Error).message += `:\n${output}`;
    throw error;
  }
  return { url: `http://127.0.0.1:${port}`, process: child, output: () => output, stop };
}

function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}
