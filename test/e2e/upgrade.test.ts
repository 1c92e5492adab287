import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { type Body, client } from '../support/api-client.js';
import { filesContaining } from '../support/byte-scan.js';
import { eventually } from '../support/eventually.js';
import { knownProfileV1 } from '../support/known-answers.js';
import { tempDir } from '../support/temp-dir.js';
import { openTestApp, type TestApp, validSubject } from '../support/test-app.js';

/** test/fixtures/data-v0: written by the service before per-subject encryption (its README lists what is in it). */
const fixture = new URL('../fixtures/data-v0', import.meta.url).pathname;
const legacy = {
  key: 'test_sk_oeWzwe55HJ4HVJuxKYk3BbiBWd4mwiSnIry69Q4f',
  alpha: 'sub_01M80DKJNHCPPW8DWQ7F4FBS1G',
  beta: 'sub_01M80DKJNW2DNB0QAR37KQV3ND',
  profile: 'prf_01M80DKJP9Q02W7QJH0SVZ601D',
};

describe('a data directory written before per-subject encryption', () => {
  const dir = tempDir();
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
    dir.cleanup();
  });

  it('is sealed in place on first start and keeps working: subjects, profiles, uniqueness, erasure', async () => {
    cpSync(fixture, dir.path, { recursive: true, filter: (source) => !source.endsWith('.md') });
    const events = join(dir.path, 'sandbox.events.db');
    expect(readFileSync(events).includes('LEGACY-MARKER-ALPHA')).toBe(true);

    t = await openTestApp({ NATURE_DATA_DIR: dir.path });
    const api = client(t, legacy.key);
    // The read models are rebuilt from the upgraded log.
    const alpha = await eventually(async () => {
      const response = await api.call('GET', `/v1/nature/subjects/${legacy.alpha}`);
      return response.status === 200 ? response.body : undefined;
    });
    expect(alpha).toMatchObject({ external_subject_id: 'LEGACY-MARKER-ALPHA', metadata: { cohort: 'LEGACY-COHORT-ALPHA' } });
    const profile = (await api.call('GET', `/v1/nature/profiles/${legacy.profile}`)).body;
    expect(profile).toMatchObject({ ...knownProfileV1, subject_id: legacy.alpha, status: 'current' });
    expect((await api.call('GET', '/v1/nature/subjects?external_subject_id=LEGACY-MARKER-BETA')).body.data.map((s: Body) => s.id)).toEqual([
      legacy.beta,
    ]);
    // The external ids stay reserved under their new, keyed names.
    expect((await api.call('POST', '/v1/nature/subjects', { ...validSubject('LEGACY-MARKER-BETA') })).body).toMatchObject({
      code: 'subject_exists',
      subject_id: legacy.beta,
    });
    await t.stop();
    // No file holds plaintext any more: the log is sealed, the read models rebuilt sealed.
    expect(filesContaining(dir.path, ['LEGACY-MARKER-ALPHA', 'LEGACY-COHORT-BETA'])).toEqual([]);

    // A second start finds the log upgraded and changes nothing; erasure then works on the old subject too.
    t = await openTestApp({ NATURE_DATA_DIR: dir.path });
    const again = client(t, legacy.key);
    expect((await again.call('GET', `/v1/nature/subjects/${legacy.beta}`)).body).toMatchObject({
      external_subject_id: 'LEGACY-MARKER-BETA',
    });
    expect((await again.call('DELETE', `/v1/nature/subjects/${legacy.alpha}`)).status).toBe(200);
    expect((await again.call('GET', `/v1/nature/profiles/${legacy.profile}`)).status).toBe(410);
    expect((await again.call('GET', `/v1/nature/subjects/${legacy.alpha}/audit`)).body.data[0]).toMatchObject({
      type: 'subject.created',
      personal_data: 'erased',
    });
    expect((await again.call('POST', '/v1/nature/subjects', validSubject('LEGACY-MARKER-ALPHA'))).status).toBe(201);
    await t.stop();
    // Nothing personal is in plain text anywhere, erased or not: the read models are rebuilt sealed.
    expect(filesContaining(dir.path, ['LEGACY-MARKER-ALPHA', 'LEGACY-COHORT-ALPHA', 'LEGACY-MARKER-BETA', 'LEGACY-COHORT-BETA'])).toEqual(
      [],
    );
  });
});
