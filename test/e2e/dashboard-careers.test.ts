import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CareersIndex } from '../../src/careers/careers-index.js';
import { indexCatalogue } from '../../src/careers/careers-index.js';
import { smallCatalogue } from '../support/careers-fixture.js';
import { Browser, dashboardUser, shownSecret } from '../support/dashboard.js';
import { decodeHtml } from '../support/html-text.js';
import { auth, openTestApp, type TestApp } from '../support/test-app.js';

/** A page's words, tags out, whitespace as single spaces. */
const htmlText = (page: string) => decodeHtml(page.replace(/<[^>]+>/g, '')).replace(/\s+/g, ' ');

describe('the dashboard and careers', () => {
  let t: TestApp;
  let email: string;
  let served: CareersIndex | undefined;
  beforeAll(async () => {
    t = await openTestApp({}, { careers: { current: () => served } });
    email = await dashboardUser(t);
  });
  afterAll(() => t.close());

  it('says no catalogue is imported, with the command, then shows the version and the attribution', async () => {
    const browser = new Browser(t.app);
    await browser.signIn(email);
    const before = htmlText((await browser.get('/dashboard/keys')).body);
    expect(before).toContain('No careers catalogue imported');
    expect(before).toContain('nature careers import PATH');
    served = indexCatalogue(smallCatalogue());
    const page = await browser.get('/dashboard/keys');
    expect(htmlText(page.body)).toContain('Catalogue onet-27.0/careers-map-v1');
    expect(htmlText(page.body)).toContain('includes information from the O*NET 27.0 Database by USDOL/ETA, used under CC BY 4.0');
    expect(page.body).toContain('href="https://www.onetcenter.org/license_db.html"');
  });

  it('mints a secret key with careers:read that reads careers, and refuses it on a publishable key', async () => {
    served = indexCatalogue(smallCatalogue());
    const browser = new Browser(t.app);
    await browser.signIn(email);
    await browser.get('/dashboard/keys');
    const form = { name: 'careers', environment: 'test', type: 'sk', scopes: ['careers:read'], origins: '' };
    const created = await browser.follow(await browser.post('/dashboard/keys', form));
    const raw = shownSecret(created.body, /test_sk_[0-9A-Za-z]{40}/);
    expect((await t.app.inject({ url: '/v1/careers/car_rn', headers: auth(raw) })).statusCode).toBe(200);
    await browser.get('/dashboard/keys');
    const refused = await browser.post('/dashboard/keys', { ...form, type: 'pk' });
    expect(refused.statusCode).toBe(422);
    expect(htmlText(refused.body)).toContain('cannot have careers:read');
  });
});
