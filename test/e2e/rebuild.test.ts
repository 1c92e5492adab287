import { afterEach, describe, expect, it } from 'vitest';
import { type RebuildProgress, rebuildProfiles } from '../../src/commands/rebuild-profiles.js';
import { assessmentStream } from '../../src/domain/assessment.js';
import { type Body, client } from '../support/api-client.js';
import { eventually } from '../support/eventually.js';
import { knownResponses } from '../support/known-answers.js';
import { receiverPool } from '../support/receiver.js';
import { StoreReader } from '../support/stores.js';
import { openTestApp, type TestApp, validSubject } from '../support/test-app.js';

/** Answers that mn76-v1 and mn76-v2 score alike: mn_056 and mn_057, the items v2 re-keys, answered the same. */
const unchangedByV2 = knownResponses.map((r) => (r.item_id === 'mn_056' || r.item_id === 'mn_057' ? { ...r, value: 4 } : r));

describe('profile rebuild with mn76-v2 under concurrent API traffic', () => {
  let t: TestApp;
  const receivers = receiverPool();
  afterEach(async () => {
    await receivers.closeAll();
    await t.close();
  });

  it('serves v1 until the switch and v2 after, for assessments completed during it too, and announces each changed profile once', async () => {
    // The server still scores with v1, as one deployed before the fix would.
    t = await openTestApp({ NATURE_SCORING_VERSION: 'mn76-v1' });
    const api = client(t, (await t.mint('test', 'sk')).raw);
    const receiver = await receivers.start();
    receiver.useSecret((await api.register(receiver.url, ['nature.assessment.completed', 'nature.profile.updated'])).secret);
    const before: { subjectId: string; changes: boolean }[] = [];
    for (let i = 0; i < 6; i++) before.push({ ...(await api.completeAssessment(validSubject(), knownResponses)), changes: true });
    for (let i = 0; i < 2; i++) before.push({ ...(await api.completeAssessment(validSubject(), unchangedByV2)), changes: false });
    const v1Profiles = new Map<string, Body>();
    for (const { subjectId } of before) v1Profiles.set(subjectId, await api.profileOf(subjectId));
    expect([...v1Profiles.values()].every((p) => p.scoring_version === 'mn76-v1')).toBe(true);
    await receiver.waitFor(8);

    // While the rebuild rescores, callers keep completing assessments and reading profiles.
    const during: Promise<{ subjectId: string }>[] = [];
    const seenDuringRescoring: string[] = [];
    // The rebuild waits for each read, so every one is served while it rescores.
    const onProgress = async ({ phase, done }: RebuildProgress) => {
      if (phase !== 'rescoring') return;
      if (done <= 3) during.push(api.completeAssessment(validSubject(), knownResponses));
      seenDuringRescoring.push(
        (await api.call('GET', `/v1/nature/subjects/${before[0]!.subjectId}/profile`)).body.scoring_version as string,
      );
    };
    const env = t.envs.test;
    const summary = await rebuildProfiles({ sealedLog: env.sealedLog, events: env.events, readModels: env.readModels }, 'mn76-v2', {
      onProgress,
    });
    expect(new Set(seenDuringRescoring)).toEqual(new Set(['mn76-v1']));
    expect(summary).toMatchObject({ scoring_version: 'mn76-v2', activated: true });
    expect(summary.assessments).toBeGreaterThanOrEqual(8);
    const completedDuring = await Promise.all(during);
    expect(completedDuring).toHaveLength(3);

    // After the switch every subject is served v2, those completed during the rebuild included.
    for (const { subjectId } of [...before, ...completedDuring]) {
      const current = await eventually(async () => {
        const profile = (await api.call('GET', `/v1/nature/subjects/${subjectId}/profile`)).body;
        return profile.scoring_version === 'mn76-v2' ? profile : undefined;
      });
      expect(current).toMatchObject({ status: 'current', superseded_by: null });
    }
    // Old profile ids still resolve, marked superseded, with a link to the new one.
    for (const [subjectId, old] of v1Profiles) {
      const current = (await api.call('GET', `/v1/nature/subjects/${subjectId}/profile`)).body;
      expect((await api.call('GET', `/v1/nature/profiles/${old.id}`)).body).toEqual({
        ...old,
        status: 'superseded',
        superseded_by: current.id,
      });
    }
    expect((await api.call('GET', `/v1/nature/subjects/${before[0]!.subjectId}/profile`)).body.intelligences).toMatchObject({
      visual_graphic: 0.125,
      visual_spatial: 0.375,
    });

    // Webhooks: each completion announced once (never again by the rebuild); each changed profile once.
    const changed = before.filter((b) => b.changes).length + completedDuring.length;
    await receiver.waitFor(11 + changed);
    // Then all the service had to send is sent: every event fanned out, no delivery waiting. Only then count.
    const store = new StoreReader(t.dataDir);
    const sending = () => {
      const states = store.busStates('sandbox');
      return Object.keys(states).some((name) => name.endsWith(':ready')) || (states['events:done'] ?? 0) < 11 + changed;
    };
    await expect.poll(sending, { timeout: 60_000 }).toBe(false);
    store.close();
    const types = receiver.received.map((r) => (r.verified.ok ? (r.verified.payload as Body) : { type: 'unverified' }));
    const completed = types.filter((p) => p.type === 'nature.assessment.completed');
    const updated = types.filter((p) => p.type === 'nature.profile.updated');
    expect(completed).toHaveLength(11);
    expect(new Set(completed.map((p) => p.id)).size).toBe(11);
    expect(updated).toHaveLength(changed);
    expect(new Set(updated.map((p) => p.data.subject_id))).toEqual(
      new Set([...before.filter((b) => b.changes), ...completedDuring].map((b) => b.subjectId)),
    );
    const update = updated.find((p) => p.data.subject_id === before[0]!.subjectId)!;
    expect(update.data).toMatchObject({ previous_profile_id: v1Profiles.get(before[0]!.subjectId)!.id, scoring_version: 'mn76-v2' });
    expect((await api.call('GET', `/v1/nature/profiles/${update.data.profile_id}`)).body).toMatchObject({
      scoring_version: 'mn76-v2',
      status: 'current',
    });
    expect(receiver.received.length).toBe(11 + changed);

    // Each assessment was rescored once; a second run changes nothing.
    for (const { subjectId } of before) {
      const assessmentId = v1Profiles.get(subjectId)!.assessment_id as string;
      const { events } = await env.events.readStream(assessmentStream(assessmentId));
      expect(events.filter((e) => e.type === 'ProfileRescored')).toHaveLength(1);
    }
    const again = await rebuildProfiles({ sealedLog: env.sealedLog, events: env.events, readModels: env.readModels }, 'mn76-v2', {
      onProgress: () => undefined,
    });
    expect(again).toMatchObject({ rescored: 0, activated: false, changed_profiles: changed });

    // A rollback to v1 is a change too: each subject whose served profile changes back is told once, with the v2
    // profile it replaces; the summary counts them; running it again tells nobody anything.
    const v2Profiles = new Map<string, Body>();
    for (const { subjectId } of [...before, ...completedDuring])
      v2Profiles.set(subjectId, (await api.call('GET', `/v1/nature/subjects/${subjectId}/profile`)).body);
    const back = await rebuildProfiles({ sealedLog: env.sealedLog, events: env.events, readModels: env.readModels }, 'mn76-v1', {
      onProgress: () => undefined,
    });
    expect(back).toMatchObject({ scoring_version: 'mn76-v1', rescored: 0, activated: true, changed_profiles: changed });
    await receiver.waitFor(11 + 2 * changed);
    const rolledBack = receiver.received
      .slice(11 + changed)
      .map((r) => (r.verified.ok ? (r.verified.payload as Body) : { type: 'unverified' }));
    expect(rolledBack.map((p) => p.type)).toEqual(Array(changed).fill('nature.profile.updated'));
    for (const update of rolledBack) {
      expect(update.data).toMatchObject({ scoring_version: 'mn76-v1', previous_profile_id: v2Profiles.get(update.data.subject_id)!.id });
      expect((await api.call('GET', `/v1/nature/subjects/${update.data.subject_id}/profile`)).body).toMatchObject({
        id: update.data.profile_id,
        scoring_version: 'mn76-v1',
        status: 'current',
      });
    }
    expect(new Set(rolledBack.map((p) => p.data.subject_id)).size).toBe(changed);
    const backAgain = await rebuildProfiles({ sealedLog: env.sealedLog, events: env.events, readModels: env.readModels }, 'mn76-v1', {
      onProgress: () => undefined,
    });
    expect(backAgain).toMatchObject({ activated: false, changed_profiles: changed });
    const events = (await api.call('GET', '/v1/nature/events?limit=100')).body.data as Body[];
    expect(events.filter((e) => e.type === 'nature.profile.updated')).toHaveLength(2 * changed);
  });
});
