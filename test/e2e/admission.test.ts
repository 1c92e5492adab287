import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '../support/eventually.js';
import { openTestApp, type TestApp } from '../support/test-app.js';

const subject = (externalId: string) => ({
  external_subject_id: externalId,
  consent: { text_version: 'consent-v3', granted_at: '2026-01-01T09:30:00Z', ui_hash: `sha256:${'ab'.repeat(32)}` },
});

describe('admission control: writes under way past NATURE_MAX_WRITES_IN_FLIGHT', () => {
  let t: TestApp;
  let base: string;
  let key: string;

  beforeAll(async () => {
    t = await openTestApp({ NATURE_MAX_WRITES_IN_FLIGHT: '1', NATURE_RATE_LIMIT_PER_SECOND: '100000', NATURE_RATE_LIMIT_BURST: '100000' });
    key = (await t.mint('test', 'sk')).raw;
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
  });
  afterAll(() => t.close());

  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}/v1/nature/subjects`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const subjectsNamed = async (externalId: string) =>
    (
      (await (
        await fetch(`${base}/v1/nature/subjects?external_subject_id=${externalId}`, { headers: { authorization: `Bearer ${key}` } })
      ).json()) as {
        data: { id: string }[];
      }
    ).data;

  /** A write admitted and held open: its headers sent, its body not yet; `finish` sends the rest and reads the answer. */
  function heldWrite(externalId: string): { socket: Socket; finish: () => Promise<string> } {
    const body = JSON.stringify(subject(externalId));
    const socket = connect(Number(new URL(base).port), '127.0.0.1');
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    socket.write(
      `POST /v1/nature/subjects HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`,
    );
    return {
      socket,
      finish: async () => {
        socket.write(body.slice(10));
        await closed;
        return answer;
      },
    };
  }

  it('answers one write more 503 service_unavailable with Retry-After, changing nothing, and takes its retry once there is room', async () => {
    const held = heldWrite('held-write');
    try {
      // Once the held write is admitted, any other write is refused: an invalid one (422 if it were admitted, and it writes nothing) shows when.
      await eventually(async () => ((await post({})).status === 503 ? true : undefined));

      const refused = await post(subject('refused-write'), { 'idempotency-key': 'admission-retry-1' });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(await refused.json()).toMatchObject({
        status: 503,
        code: 'service_unavailable',
        request_id: refused.headers.get('request-id'),
      });
      // Reads are never refused, however many writes are under way.
      expect((await fetch(`${base}/v1/nature/items`, { headers: { authorization: `Bearer ${key}` } })).status).toBe(200);

      // The held write was accepted whole.
      expect(await held.finish()).toMatch(/^HTTP\/1\.1 201 /);
      expect(await subjectsNamed('held-write')).toHaveLength(1);
      // The refused one left nothing, not even its Idempotency-Key: its retry runs as a first attempt and is created once.
      expect(await subjectsNamed('refused-write')).toHaveLength(0);
      const retried = await post(subject('refused-write'), { 'idempotency-key': 'admission-retry-1' });
      expect(retried.status).toBe(201);
      expect(await subjectsNamed('refused-write')).toHaveLength(1);
    } finally {
      held.socket.destroy();
    }
  });

  it('keeps every write it accepted in a burst and none it refused', async () => {
    const names = Array.from({ length: 40 }, (_, i) => `burst-${i}`);
    const statuses = await Promise.all(names.map(async (name) => (await post(subject(name))).status));
    expect(statuses.every((status) => status === 201 || status === 503)).toBe(true);
    for (const [i, name] of names.entries()) expect(await subjectsNamed(name)).toHaveLength(statuses[i] === 201 ? 1 : 0);
  });
});
