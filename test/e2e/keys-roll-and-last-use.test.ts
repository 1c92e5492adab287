import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usedHour } from '../../src/domain/api-keys.js';
import { runCliInProcess } from '../support/cli.js';
import { Browser, csrfOf, dashboardUser, shownSecret } from '../support/dashboard.js';
import { eventually } from '../support/eventually.js';
import { auth, openTestApp, type TestApp } from '../support/test-app.js';

const RAW_KEY = /(test|live)_(sk|pk)_[0-9A-Za-z]{40}/;
const HOUR = 3_600_000;

describe('keys that roll with a grace period, and say when they were last used', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openTestApp();
  });
  afterAll(() => t.close());

  const status = async (raw: string) => (await t.app.inject({ method: 'GET', url: '/v1/nature/subjects', headers: auth(raw) })).statusCode;
  const nature = (args: string[]) => runCliInProcess(args, { NATURE_DATA_DIR: t.dataDir });
  const listed = async (id: string) =>
    (JSON.parse((await nature(['keys', 'list', '--json'])).stdout) as { id: string; status: string; revoked_at: string }[]).find(
      (key) => key.id === id,
    )!;

  it('keeps the old key working beside the new one until its expiry, then refuses it (nature keys rotate --expires-in)', async () => {
    const old = await t.mint('test', 'sk');
    const rotated = await nature(['keys', 'rotate', old.id, '--expires-in', '1h', '--json']);
    expect(rotated.status, rotated.stderr).toBe(0);
    expect(rotated.stderr).toMatch(new RegExp(`${old.id} works until \\d{4}-\\d{2}-\\d{2}T`));
    const replacement = JSON.parse(rotated.stdout) as { id: string; key: string; status: string };
    expect(replacement.status).toBe('active');
    expect([await status(old.raw), await status(replacement.key)]).toEqual([200, 200]);
    const before = await listed(old.id);
    expect(before.status).toBe('expiring');
    expect(Date.parse(before.revoked_at) - Date.now()).toBeGreaterThan(HOUR - 60_000);
    // A rolled key is not rolled again.
    expect((await nature(['keys', 'rotate', old.id])).stderr).toMatch(/already rotated/);

    t.advance(HOUR + 1000);
    expect(await status(old.raw)).toBe(401);
    expect(await status(replacement.key)).toBe(200);
    t.advance(-(HOUR + 1000));
  });

  it('stops the old key at once by default, and revokes a rolled key before its expiry', async () => {
    const old = await t.mint('test', 'sk');
    const now = JSON.parse((await nature(['keys', 'rotate', old.id, '--json'])).stdout) as { key: string };
    expect([await status(old.raw), await status(now.key)]).toEqual([401, 200]);
    expect((await listed(old.id)).status).toBe('rotated');

    const rolled = await t.mint('test', 'sk');
    await nature(['keys', 'rotate', rolled.id, '--expires-in', '7d']);
    expect(await status(rolled.raw)).toBe(200);
    const revoked = await nature(['keys', 'revoke', rolled.id, '--json']);
    expect(revoked.status, revoked.stderr).toBe(0);
    expect(JSON.parse(revoked.stdout)).toMatchObject({ id: rolled.id, status: 'revoked' });
    expect(await status(rolled.raw)).toBe(401);
  });

  it('shows when each key was last used, to the hour, written after its requests rather than by them', async () => {
    const used = await t.mint('test', 'sk');
    const idle = await t.mint('test', 'sk');
    expect((await t.keys.get(used.id))!.last_used_at).toBeNull();
    const before = usedHour(new Date());
    for (let i = 0; i < 20; i++) expect(await status(used.raw)).toBe(200);
    const after = usedHour(new Date());
    // No request wrote it: the hour is written a few seconds later, once (the hour the last request fell in).
    const hour = await eventually(async () => {
      const written = (await t.keys.get(used.id))!.last_used_at;
      return written === before || written === after ? written : undefined;
    });
    expect((await t.keys.get(idle.id))!.last_used_at).toBeNull();
    const listed = JSON.parse((await nature(['keys', 'list', '--json'])).stdout) as { id: string; last_used_at: string | null }[];
    expect(listed.find((key) => key.id === used.id)!.last_used_at).toBe(hour);
    expect((await nature(['keys', 'list'])).stdout).toMatch(/LAST USED/);
    const browser = new Browser(t.app);
    await browser.signIn(await dashboardUser(t));
    const row = (await browser.get('/dashboard/keys')).body.split('<tr>').find((tr) => tr.includes(used.raw.slice(-4)))!;
    expect(row).toContain(`${hour.slice(0, 10)} ${hour.slice(11, 16)} UTC`);
  });

  it('offers the expiry on the dashboard, shows the old key as expiring with a way to revoke it now', async () => {
    const browser = new Browser(t.app);
    await browser.signIn(await dashboardUser(t));
    const old = await t.mint('test', 'sk');
    const form = (await browser.get(`/dashboard/keys/${old.id}/rotate`)).body;
    for (const choice of ['now', '1h', '24h', '3d', '7d']) expect(form).toContain(`<option value="${choice}"`);
    const sent = await browser.post(`/dashboard/keys/${old.id}/rotate`, { expires_in: '24h' }, csrfOf(form), form);
    expect(sent.statusCode).toBe(303);
    const shown = (await browser.get(String(sent.headers.location))).body;
    expect(shown).toContain('the old key keeps working for 24 hours');
    const replacement = shownSecret(shown, RAW_KEY);
    expect([await status(old.raw), await status(replacement)]).toEqual([200, 200]);
    const table = (await browser.get('/dashboard/keys')).body;
    expect(table).toContain(`href="/dashboard/keys/${old.id}/revoke">Revoke now`);
    expect(table).toMatch(/expiring/);
    // Not rotated twice: its rotate page is gone; its revoke page is there.
    expect((await browser.get(`/dashboard/keys/${old.id}/rotate`)).statusCode).toBe(404);
    const revokeForm = (await browser.get(`/dashboard/keys/${old.id}/revoke`)).body;
    expect((await browser.post(`/dashboard/keys/${old.id}/revoke`, {}, csrfOf(revokeForm), revokeForm)).statusCode).toBe(303);
    expect(await status(old.raw)).toBe(401);
    // A value the form does not offer changes nothing.
    const other = await t.mint('test', 'sk');
    const otherForm = (await browser.get(`/dashboard/keys/${other.id}/rotate`)).body;
    expect((await browser.post(`/dashboard/keys/${other.id}/rotate`, { expires_in: '30d' }, csrfOf(otherForm), otherForm)).statusCode).toBe(
      422,
    );
    expect((await t.keys.get(other.id))!.revoked_at).toBeNull();
  });
});
