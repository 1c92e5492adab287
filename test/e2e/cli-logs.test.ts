import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectFailure, runCliInProcess } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { spawnFromSource } from '../support/processes.js';
import { auth, openTestApp, type TestApp } from '../support/test-app.js';

const EXT = 'CLI-LOGS-EXT-0c7e';

describe('nature logs tail', () => {
  let t: TestApp;
  let env: Record<string, string>;
  let key: { id: string; raw: string };
  let other: { id: string; raw: string };
  const ids: string[] = [];

  /** A request sent to the app; resolves with its id once the request log holds it. */
  const send = async (raw: string, url: string) => {
    const response = await t.app.inject({ method: 'GET', url, headers: auth(raw) });
    const id = String(response.headers['request-id']);
    await eventually(() => t.envs.test.requests.get(id));
    return id;
  };

  beforeAll(async () => {
    t = await openTestApp();
    env = { NATURE_DATA_DIR: t.dataDir };
    key = await t.mint('test', 'sk');
    other = await t.mint('test', 'sk');
    ids.push(await send(key.raw, '/v1/nature/subjects?limit=3'));
    ids.push(await send(key.raw, `/v1/nature/subjects/${EXT}`));
    ids.push(await send(other.raw, '/v1/nature/events'));
  });
  afterAll(async () => {
    await t.close();
  });

  it('prints the latest requests oldest first, one a line, and exits with --no-follow', async () => {
    const { status, stdout } = await runCliInProcess(['logs', 'tail', '--env', 'test', '--no-follow'], env);
    expect(status).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines.map((line) => /req_[0-9A-Z]{26}/.exec(line)?.[0])).toEqual(ids);
    expect(lines[1]).toMatch(
      new RegExp(
        `^\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z  GET     404 not_found .* ms  test_sk_…${key.raw.slice(-4)}  ${ids[1]}  /v1/nature/subjects/‹segment›$`,
      ),
    );
    expect(stdout).not.toContain(EXT);
  });

  it('filters by status class, path or route, key and time, and prints JSON', async () => {
    const tail = async (...args: string[]) => {
      const { status, stdout } = await runCliInProcess(['logs', 'tail', '--env', 'test', '--no-follow', ...args], env);
      expect(status).toBe(0);
      return stdout.match(/req_[0-9A-Z]{26}/g) ?? [];
    };
    expect(await tail('--status', '4xx')).toEqual([ids[1]]);
    expect(await tail('--path', '/v1/nature/events')).toEqual([ids[2]]);
    expect(await tail('--path', '/v1/nature/subjects/:id')).toEqual([ids[1]]);
    expect(await tail('--key', other.id)).toEqual([ids[2]]);
    expect(await tail('--limit', '1')).toEqual([ids[2]]);
    const last = (await t.envs.test.requests.get(ids[2]!))!;
    expect(await tail('--since', new Date(last.at).toISOString())).toEqual([ids[2]]);
    expect(await tail('--until', new Date(last.at).toISOString(), '--key', other.id)).toEqual([]);
    const json = await runCliInProcess(['logs', 'tail', '--env', 'test', '--no-follow', '--json', '--status', '4xx'], env);
    expect(JSON.parse(json.stdout)).toEqual(await t.envs.test.requests.get(ids[1]!));
  });

  it('refuses a filter that names nothing, and a data directory without the environment', async () => {
    expectFailure(await runCliInProcess(['logs', 'tail', '--env', 'test', '--status', '6xx'], env), 2, /status class/);
    expectFailure(await runCliInProcess(['logs', 'tail', '--env', 'test', '--since', 'yesterday'], env), 2, /UTC date/);
    expectFailure(
      await runCliInProcess(['logs', 'tail', '--env', 'test'], { NATURE_DATA_DIR: `${t.dataDir}/nowhere` }),
      1,
      /no sandbox event log/,
    );
  });

  it('follows new requests as they are written, until Ctrl-C', async () => {
    const tail = spawnFromSource(['src/cli/main.ts', 'logs', 'tail', '--env', 'test'], env);
    await eventually(async () => (tail.output().includes(ids[2]!) ? true : undefined));
    const fresh = await send(key.raw, '/v1/nature/subjects?limit=4');
    await eventually(async () => (tail.output().includes(fresh) ? true : undefined));
    tail.process.kill('SIGINT');
    expect(await tail.exited).toBe(0);
    // Each request once, in order.
    expect(tail.output().match(/req_[0-9A-Z]{26}/g)).toEqual([...ids, fresh]);
  });
});
