import type { ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { serverPool, spawnFromSource } from '../support/processes.js';
import { receiverPool } from '../support/receiver.js';
import { tempDir } from '../support/temp-dir.js';

interface Listener {
  process: ChildProcess;
  output: () => string;
  secret: string;
  exited: Promise<number | string>;
}

/** `nature listen` as its own process, as a developer runs it in a terminal; resolves once it says it is ready. */
async function startListener(args: string[], env: Record<string, string>): Promise<Listener> {
  const { process: child, output, exited } = spawnFromSource(['src/cli/main.ts', 'listen', ...args], env);
  await new Promise<void>((resolve, reject) => {
    const check = () => /^Ready: /m.test(output()) && resolve();
    child.stdout?.on('data', check);
    void exited.then(() => reject(new Error(`nature listen exited:\n${output()}`)));
  });
  const secret = /^Signing secret: (whsec_\S+)/m.exec(output())?.[1];
  if (secret === undefined) throw new Error(`no signing secret printed:\n${output()}`);
  return { process: child, output, secret, exited };
}

/** What these tests follow: the completions a trigger causes (it causes a subject's and an assessment's start too). */
const COMPLETIONS = ['--events', 'nature.assessment.completed'];

describe('nature listen and nature trigger, against the server process', () => {
  let dir: ReturnType<typeof tempDir>;
  let env: Record<string, string>;
  const servers = serverPool(() => env);
  const receivers = receiverPool();
  const listeners: Listener[] = [];
  beforeEach(() => {
    dir = tempDir();
    env = { NATURE_DATA_DIR: dir.path };
  });
  afterEach(async () => {
    for (const listener of listeners.splice(0)) {
      listener.process.kill('SIGKILL');
      await listener.exited;
    }
    await servers.killAll();
    await receivers.closeAll();
    dir.cleanup();
  });

  /** A server and a sandbox key for it, given to the commands as a developer would, in the environment. */
  async function sandbox() {
    const server = await servers.start();
    const key = JSON.parse((await runCliInProcess(keyCreateArgs('test', 'developer'), env)).stdout).key as string;
    return { server, callerEnv: { NATURE_API_KEY: key, NATURE_BASE_URL: server.url, XDG_STATE_HOME: join(dir.path, 'state') } };
  }
  const trigger = async (callerEnv: Record<string, string>) => {
    const result = await runCliInProcess(['trigger', 'nature.assessment.completed', '--json'], callerEnv);
    expect(result.status, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as { subject_id: string; assessment_id: string; profile_id: string; event_id: string };
  };
  const listen = async (args: string[], callerEnv: Record<string, string>) => {
    const listener = await startListener(args, callerEnv);
    listeners.push(listener);
    return listener;
  };

  it('trigger completes a real assessment; listen forwards its event, signed, to a local receiver that verifies it', async () => {
    const { server, callerEnv } = await sandbox();
    const receiver = await receivers.start();
    const listener = await listen([...COMPLETIONS, '--forward-to', receiver.url], callerEnv);
    expect(listener.output()).toContain(`Forwarding sandbox events of ${server.url} to ${receiver.url}`);
    receiver.useSecret(listener.secret);

    const triggered = await trigger(callerEnv);
    expect(triggered).toEqual({
      subject_id: expect.stringMatching(/^sub_/),
      assessment_id: expect.stringMatching(/^asm_/),
      profile_id: expect.stringMatching(/^prf_/),
      event_id: expect.stringMatching(/^evt_/),
    });
    const [delivery] = await receiver.waitFor(1);
    expect(delivery!.verified).toEqual({
      ok: true,
      payload: expect.objectContaining({
        id: triggered.event_id,
        type: 'nature.assessment.completed',
        livemode: false,
        data: expect.objectContaining({
          subject_id: triggered.subject_id,
          assessment_id: triggered.assessment_id,
          profile_id: triggered.profile_id,
        }),
      }),
    });
    expect(delivery!.headers['webhook-id']).toBe(triggered.event_id);
    // The profile it made is a real one, read with the same key.
    const profile = await fetch(`${server.url}/v1/nature/profiles/${triggered.profile_id}`, {
      headers: { authorization: `Bearer ${callerEnv.NATURE_API_KEY}` },
    });
    expect(profile.status).toBe(200);
  });

  it('resumes where it stopped, with the same secret, and holds an event until the receiver takes it; a new listener starts from now', async () => {
    const { callerEnv } = await sandbox();
    // The second request fails: the event is sent again, not skipped.
    const receiver = await receivers.start((n) => (n === 2 ? 500 : 200));
    const first = await listen([...COMPLETIONS, '--forward-to', receiver.url], callerEnv);
    receiver.useSecret(first.secret);
    const one = await trigger(callerEnv);
    await receiver.waitFor(1);

    first.process.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain('Stopped: the next run resumes from here.');
    const two = await trigger(callerEnv);
    const again = await listen([...COMPLETIONS, '--forward-to', receiver.url], callerEnv);
    expect(again.secret).toBe(first.secret);
    expect(again.output()).toContain('Ready: forwarding what happened since the last run (or --print-secret) stopped.');
    await receiver.waitFor(3);
    expect(receiver.received.map((delivery) => delivery.verified.ok && (delivery.verified.payload as { id: string }).id)).toEqual([
      one.event_id,
      two.event_id,
      two.event_id,
    ]);
    // The line is printed once the 500 is read, which may be just after the receiver counted the request.
    await expect.poll(() => again.output()).toMatch(new RegExp(`${two.event_id} {2}-> 500 \\(\\d+ ms\\), sending again in 1 s`));

    // Another listener (its own state) forwards only what happens after it started.
    const fresh = await receivers.start();
    const other = await listen([...COMPLETIONS, '--forward-to', fresh.url, '--state-file', join(dir.path, 'other.json')], callerEnv);
    expect(other.secret).not.toBe(first.secret);
    fresh.useSecret(other.secret);
    const three = await trigger(callerEnv);
    const [only] = await fresh.waitFor(1);
    expect(only!.verified).toMatchObject({ ok: true, payload: { id: three.event_id } });
    await receiver.waitFor(4);
    expect(fresh.received).toHaveLength(1);
  });

  it('stops at Ctrl-C while a forward waits on a receiver that hangs, and sends that event again on the next run', async () => {
    const { callerEnv } = await sandbox();
    const receiver = await receivers.start((n) => (n === 1 ? 'hang' : 200));
    // A receiver given ten minutes: only Ctrl-C can end this forward before the test's own timeout.
    const first = await listen(['--forward-to', receiver.url, '--timeout', '600000'], callerEnv);
    receiver.useSecret(first.secret);
    const { event_id } = await trigger(callerEnv);
    await receiver.waitFor(1);
    first.process.kill('SIGINT');
    expect(await first.exited).toBe(0);
    expect(first.output()).toContain('Stopped: the next run resumes from here.');
    // Not answered, so not forwarded: the next run sends it again.
    await listen([...COMPLETIONS, '--forward-to', receiver.url], callerEnv);
    const [, again] = await receiver.waitFor(2);
    expect(again!.verified).toMatchObject({ ok: true, payload: { id: event_id } });
  });

  it.each([
    ['a scheme and nothing else', 'http://'],
    ['no scheme', 'localhost:3000/webhooks'],
    ['another scheme', 'ftp://localhost/webhooks'],
    ['not a URL', 'webhooks'],
  ])('refuses --forward-to with %s as a usage error, before it reads anything', async (_case, url) => {
    const result = await runCliInProcess(['listen', '--forward-to', url], {
      NATURE_API_KEY: `test_sk_${'0'.repeat(40)}`,
      NATURE_BASE_URL: 'http://127.0.0.1:9',
    });
    expect(result).toMatchObject({ status: 2, stdout: '' });
    expect(result.stderr).toMatch(/^nature: option '--forward-to <url>' argument '.*' is invalid\. It is an http\(s\) URL with a host/);
  });

  it('trigger causes each lifecycle event for real, and names it; listen --events forwards only the types asked for', async () => {
    const { server, callerEnv } = await sandbox();
    const receiver = await receivers.start();
    const listener = await listen(
      ['--forward-to', receiver.url, '--events', 'nature.subject.erased,nature.assessment.abandoned'],
      callerEnv,
    );
    receiver.useSecret(listener.secret);
    const run = async (type: string) => {
      const result = await runCliInProcess(['trigger', type, '--json'], callerEnv);
      expect(result.status, result.stderr).toBe(0);
      return JSON.parse(result.stdout) as Record<string, string>;
    };
    const created = await run('nature.subject.created');
    const started = await run('nature.assessment.started');
    const abandoned = await run('nature.assessment.abandoned');
    const erased = await run('nature.subject.erased');
    for (const [type, ids] of [
      ['nature.subject.created', created],
      ['nature.assessment.started', started],
      ['nature.assessment.abandoned', abandoned],
      ['nature.subject.erased', erased],
    ] as const) {
      const event = await fetch(`${server.url}/v1/nature/events/${ids.event_id}`, {
        headers: { authorization: `Bearer ${callerEnv.NATURE_API_KEY}` },
      });
      const body = (await event.json()) as { type: string; data: Record<string, string> };
      expect(body.type).toBe(type);
      expect(body.data.subject_id).toBe(ids.subject_id);
      if (ids.assessment_id !== undefined) expect(body.data.assessment_id).toBe(ids.assessment_id);
    }
    const deliveries = await receiver.waitFor(2);
    const forwarded = deliveries.map((delivery) => JSON.parse(delivery.body).id).sort();
    expect(forwarded).toEqual([abandoned.event_id, erased.event_id].sort());
    // Caused by something else than a call: refused with the reason, and a misspelt type is refused, not silently empty.
    const expired = await runCliInProcess(['trigger', 'nature.assessment.expired'], callerEnv);
    expect(expired.status).not.toBe(0);
    expect(expired.stderr).toMatch(/cannot cause nature.assessment.expired: it comes 7 days after a start/);
    const misspelt = await runCliInProcess(['listen', '--forward-to', receiver.url, '--events', 'nature.subject.create'], callerEnv);
    expect(misspelt.status).toBe(2);
    expect(misspelt.stderr).toMatch(/nature.subject.create: not an event type/);
  });

  it('refuses what cannot work, in one line: trigger with a production or no key, listen with a key the server refuses', async () => {
    const { callerEnv } = await sandbox();
    const live = await runCliInProcess(['trigger', 'nature.assessment.completed'], {
      ...callerEnv,
      NATURE_API_KEY: `live_sk_${'0'.repeat(40)}`,
    });
    expect(live).toMatchObject({ status: 2, stdout: '' });
    expect(live.stderr).toBe('nature: nature trigger creates data: it runs with a sandbox key (test_sk_…) only, never a production one\n');
    const none = await runCliInProcess(['trigger', 'nature.assessment.completed'], { ...callerEnv, NATURE_API_KEY: '' });
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/needs an API key: --api-key or NATURE_API_KEY/);
    const publishable = await runCliInProcess(['listen', '--forward-to', 'http://127.0.0.1:9/'], {
      ...callerEnv,
      NATURE_API_KEY: `test_pk_${'0'.repeat(40)}`,
    });
    expect(publishable.status).toBe(2);
    expect(publishable.stderr).toMatch(/needs a secret key/);
    const refused = await runCliInProcess(['listen', '--forward-to', 'http://127.0.0.1:9/'], {
      ...callerEnv,
      // Well-formed, but no key the server knows.
      NATURE_API_KEY: `test_sk_${'0'.repeat(40)}`,
    });
    expect(refused.status).toBe(1);
    expect(refused.stderr).toMatch(/^nature: the server refused the key \(unauthenticated\)/);
    const malformed = await runCliInProcess(['listen', '--forward-to', 'http://127.0.0.1:9/'], {
      ...callerEnv,
      NATURE_API_KEY: 'test_sk_short',
    });
    expect(malformed.status).toBe(2);
    expect(malformed.stderr).toMatch(/that is not an API key/);
  });
});
