import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { type Body, client } from '../support/api-client.js';
import { filesContaining } from '../support/byte-scan.js';
import { eventually } from '../support/eventually.js';
import { openTestApp, type TestApp, validSubject } from '../support/test-app.js';

const consent = validSubject().consent;
const SUBJECTS = 5;

/**
 * What would give a subject's personal data away at rest: its markers (external id, metadata), and the plain
 * shapes of answers and profiles as they would be serialised (an answer, a score map, a narrative's text).
 */
function plainForms(subjects: { ext: string; meta: string }[], profile: Body): string[] {
  const narratives = [...profile.descriptions.natures, ...profile.descriptions.intelligences].map(
    (description: Body) => description.text as string,
  );
  return [
    ...subjects.flatMap(({ ext, meta }) => [ext, meta, Buffer.from(ext).toString('base64')]),
    '"item_id":"',
    '"answers":{',
    '"natures":{',
    ...narratives,
  ];
}

describe('personal data at rest', () => {
  let t: TestApp | undefined;
  afterEach(async () => {
    await t?.close();
  });

  it('is nowhere in plain text in the data directory (a situation told about a subject and the request log included), while the server runs and after it stops', async () => {
    t = await openTestApp();
    const api = client(t, (await t.mint('test', 'sk')).raw);
    const subjects = Array.from({ length: SUBJECTS }, (_, i) => ({ ext: `ATREST-EXT-${i}-7f3a9c`, meta: `ATREST-META-${i}-b81d2e` }));
    const done = [];
    for (const { ext, meta } of subjects) {
      done.push(await api.completeAssessment({ external_subject_id: ext, metadata: { note: meta }, consent }));
    }
    const profile = await api.profileOf(done.at(-1)!.subjectId);
    // Everything the API serves is there, opened for the request: the subject, its answers counted, its profile, and the lookup by external id.
    expect((await api.call('GET', `/v1/nature/subjects/${done[0]!.subjectId}`)).body).toMatchObject({
      external_subject_id: subjects[0]!.ext,
      metadata: { note: subjects[0]!.meta },
    });
    expect((await api.call('GET', `/v1/nature/subjects/${done[0]!.subjectId}/assessments/${done[0]!.assessmentId}`)).body).toMatchObject({
      responses_received: 76,
      status: 'completed',
    });
    expect((await api.call('GET', `/v1/nature/subjects?external_subject_id=${subjects[2]!.ext}`)).body.data.map((s: Body) => s.id)).toEqual(
      [done[2]!.subjectId],
    );
    // A situation told about the last subject, read against its profile: its text and its result are personal data too.
    const situationKey = client(t, (await t.mint('test', 'sk', ['situational:read', 'situational:write'])).raw);
    const situation = `Calming a frightened horse ATREST-SITUATION-4c1e during a storm, then teaching the stable team to do it.`;
    const asked = await situationKey.call('POST', '/v1/situational/assessments', {
      subject_id: done.at(-1)!.subjectId,
      situation_context: situation,
    });
    const read = await eventually(async () => {
      const { body } = await situationKey.call('GET', `/v1/situational/assessments/${asked.body.id}`);
      return body.status === 'completed' ? body : undefined;
    });
    // Refusals that quote what was sent, in a path, a query and a body: the request log keeps each, with no value of it.
    const refused = [
      await api.call('POST', '/v1/nature/subjects', {
        external_subject_id: subjects[3]!.ext,
        metadata: { note: subjects[3]!.meta },
        consent,
      }),
      await api.call('POST', '/v1/nature/subjects', { external_subject_id: subjects[4]!.ext, consent: subjects[4]!.meta }),
      await api.call('GET', `/v1/nature/subjects/${subjects[1]!.ext}`),
      await api.call('GET', `/v1/nature/subjects?external_subject_id=${subjects[1]!.ext}&starting_after=${subjects[0]!.meta}`),
    ];
    expect(refused.map(({ status }) => status)).toEqual([409, 422, 404, 400]);
    await eventually(async () => {
      const kept = await t!.envs.test.requests.list({ statusClass: 4 }, { limit: 10 });
      return kept.data.length >= refused.length ? true : undefined;
    });
    expect(existsSync(join(t.dataDir, 'sandbox.requests.db'))).toBe(true);
    const forms = [
      ...plainForms(subjects, profile),
      situation,
      'ATREST-SITUATION-4c1e',
      read.narrative,
      '"situation_context":"',
      '"alignment":{',
    ];

    // Running: every file, WAL and SHM included, as it is on disk now.
    expect(filesContaining(t.dataDir, forms)).toEqual([]);

    // The scan finds a marker that is written in plain text, in a SQLite WAL like the stores'.
    const planted = new Database(join(t.dataDir, 'planted.db'));
    planted.pragma('journal_mode = WAL');
    planted.exec('CREATE TABLE t (v TEXT)');
    planted.prepare('INSERT INTO t VALUES (?)').run(`{"external_subject_id":"${subjects[1]!.ext}"}`);
    writeFileSync(join(t.dataDir, 'planted.txt'), '"natures":{"administrative":0.875}');
    expect(filesContaining(t.dataDir, forms)).toEqual(
      expect.arrayContaining([
        { file: 'planted.db-wal', needle: subjects[1]!.ext },
        { file: 'planted.txt', needle: '"natures":{' },
      ]),
    );
    planted.close();

    await t.stop();
    expect(filesContaining(t.dataDir, forms).filter(({ file }) => !file.startsWith('planted'))).toEqual([]);
  });

  it('answers 410 for a subject whose key is gone while its documents still read active (erased through another replica), and lists leave it out', async () => {
    t = await openTestApp();
    const api = client(t, (await t.mint('test', 'sk')).raw);
    const other = await api.completeAssessment();
    const { subjectId, assessmentId } = await api.completeAssessment();
    const profile = await api.profileOf(subjectId);
    // Only the key goes, as another replica's erasure does before this one's read models show it.
    await t.envs.test.dataKeys.destroy(subjectId, new Date().toISOString());
    expect(await t.envs.test.readModels.get('subjects', subjectId)).toMatchObject({ status: 'active' });
    for (const url of [`/v1/nature/subjects/${subjectId}`, `/v1/nature/profiles/${profile.id}`]) {
      const response = await api.call('GET', url);
      expect(response, url).toMatchObject({ status: 410, body: { code: 'subject_erased', subject_id: subjectId } });
    }
    // A list leaves it out rather than fail.
    expect((await api.call('GET', '/v1/nature/subjects?limit=10')).body.data.map((s: Body) => s.id)).toEqual([other.subjectId]);
    // A scored assessment's read model holds no answers at all: it still reads.
    expect((await api.call('GET', `/v1/nature/subjects/${subjectId}/assessments/${assessmentId}`)).body).toMatchObject({
      status: 'completed',
      responses_received: 76,
    });
  });
});
