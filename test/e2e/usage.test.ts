import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runCliInProcess } from '../support/cli.js';
import { eventually } from '../support/eventually.js';
import { batches, knownResponses } from '../support/known-answers.js';
import { auth, openTestApp, type TestApp, validSubject } from '../support/test-app.js';

type Body = Record<string, any>;
interface Row {
  key_id: string | null;
  period: string;
  completed_assessments: number;
  completed_situational_assessments: number;
}

describe('usage metering (GET /v1/nature/usage and nature usage)', () => {
  let t: TestApp;
  const keys = {} as Record<'alice' | 'bob' | 'live' | 'readOnly' | 'writeOnly' | 'pk', { id: string; raw: string }>;
  /** What each completion should be billed to, with its completion time as the profile shows it. */
  const completions: { environment: 'test' | 'live'; key_id: string; completed_at: string; subject_id: string }[] = [];
  let startedAt: string;
  let range: { from: string; to: string };

  const get = (url: string, raw = keys.alice.raw) => t.app.inject({ method: 'GET', url, headers: auth(raw) });
  const send = (method: 'POST' | 'PATCH' | 'DELETE', url: string, raw: string, payload?: object) =>
    t.app.inject({ method, url, headers: auth(raw), ...(payload !== undefined && { payload }) });

  /** Starts an assessment with the first key, sends one batch per key given, and returns it once it is completed or left open. */
  async function assess(batchKeys: string[], responses = batchKeys.length === 1 ? [knownResponses] : batches(batchKeys.length)) {
    const subjectId = (await send('POST', '/v1/nature/subjects', batchKeys[0]!, validSubject())).json().id as string;
    const assessmentId = (await send('POST', `/v1/nature/subjects/${subjectId}/assessments`, batchKeys[0]!)).json().id as string;
    for (const [i, raw] of batchKeys.entries()) {
      const response = await send('PATCH', `/v1/nature/subjects/${subjectId}/assessments/${assessmentId}`, raw, {
        responses: responses[i],
      });
      expect(response.statusCode).toBe(200);
    }
    return { subjectId, assessmentId };
  }

  async function complete(environment: 'test' | 'live', batchKeys: { id: string; raw: string }[]) {
    const { subjectId, assessmentId } = await assess(batchKeys.map((key) => key.raw));
    const profile = await eventually<Body>(async () => {
      const response = await get(`/v1/nature/subjects/${subjectId}/profile`, batchKeys[0]!.raw);
      return response.statusCode === 200 ? response.json() : undefined;
    });
    expect(profile.assessment_id).toBe(assessmentId);
    completions.push({ environment, key_id: batchKeys.at(-1)!.id, completed_at: profile.created_at, subject_id: subjectId });
  }

  /** The rows the completions above must give: counted per key and UTC period, sorted by period then key. */
  function expectedRows(environment: 'test' | 'live', granularity: 'day' | 'month'): Row[] {
    const counts = new Map<string, Row>();
    for (const c of completions.filter((c) => c.environment === environment)) {
      const period = c.completed_at.slice(0, granularity === 'day' ? 10 : 7);
      const row = counts.get(`${period} ${c.key_id}`) ?? {
        key_id: c.key_id,
        period,
        completed_assessments: 0,
        completed_situational_assessments: 0,
      };
      row.completed_assessments += 1;
      counts.set(`${period} ${c.key_id}`, row);
    }
    return [...counts.values()].sort((a, b) => (a.period === b.period ? (a.key_id! < b.key_id! ? -1 : 1) : a.period < b.period ? -1 : 1));
  }

  const perKey = (rows: Row[]) => {
    const sums: Record<string, number> = {};
    for (const row of rows) sums[row.key_id!] = (sums[row.key_id!] ?? 0) + row.completed_assessments;
    return sums;
  };

  beforeAll(async () => {
    t = await openTestApp();
    keys.alice = await t.mint('test', 'sk');
    keys.bob = await t.mint('test', 'sk');
    keys.live = await t.mint('live', 'sk');
    keys.readOnly = await t.mint('test', 'sk', ['nature:read']);
    keys.writeOnly = await t.mint('test', 'sk', ['nature:write']);
    keys.pk = await t.mint('test', 'pk', ['nature:read']);
    startedAt = new Date().toISOString();

    // Alice completes 3 alone; Bob completes 1 alone and 1 that Alice started and answered 3/4 of:
    // the completing batch is Bob's, so it is billed to Bob.
    for (let i = 0; i < 3; i++) await complete('test', [keys.alice]);
    await complete('test', [keys.bob]);
    await complete('test', [keys.alice, keys.alice, keys.alice, keys.bob]);
    // Not completed, so never billed: one left half answered, one abandoned.
    await assess([keys.alice.raw, keys.bob.raw], batches(4));
    const abandoned = await assess([keys.bob.raw], [batches(2)[0]!]);
    await send('DELETE', `/v1/nature/subjects/${abandoned.subjectId}/assessments/${abandoned.assessmentId}`, keys.bob.raw);
    // Production: one completion with the live key.
    await complete('live', [keys.live]);

    range = { from: startedAt, to: new Date(Date.now() + 60_000).toISOString() };
  });

  afterAll(async () => {
    await t.close();
  });

  const usageUrl = (query: Record<string, string>) => `/v1/nature/usage?${new URLSearchParams(query)}`;

  it('counts completed assessments per key, billed to the key of the completing batch', async () => {
    const response = await get(usageUrl(range));
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const usage = response.json();
    expect(usage).toEqual({
      object: 'usage',
      livemode: false,
      from: range.from,
      to: range.to,
      granularity: 'day',
      data: expectedRows('test', 'day'),
      total_completed_assessments: 5,
      total_completed_situational_assessments: 0,
      // The sandbox is metered on its own plan: free, no quota, the account's rate limit (the default plan's).
      plan: { name: 'sandbox', monthly_quota: null, hard_cap: null, rate_limit: { per_second: 100, burst: 200 }, billed: false },
      quota: expect.objectContaining({ included: null, remaining: null, overage: 0, hard_cap: null, capped: false }),
    });
    expect(perKey(usage.data)).toEqual({ [keys.alice.id]: 3, [keys.bob.id]: 2 });
    expect(usage.data.every((row: Row) => /^\d{4}-\d{2}-\d{2}$/.test(row.period))).toBe(true);
  });

  it('carries counts only: no subject, assessment or profile ids, nor any subject data', async () => {
    const body = (await get(usageUrl(range))).body;
    expect(body).not.toMatch(/sub_|asm_|prf_|evt_|emp-|cohort|analyst/);
  });

  it('counts the same after subjects are erased', async () => {
    const before = (await get(usageUrl(range))).json();
    for (const { subject_id } of completions.filter((c) => c.environment === 'test').slice(0, 2)) {
      expect((await send('DELETE', `/v1/nature/subjects/${subject_id}`, keys.alice.raw)).statusCode).toBe(200);
      expect((await get(`/v1/nature/subjects/${subject_id}`)).statusCode).toBe(410);
    }
    expect((await get(usageUrl(range))).json()).toEqual(before);
    expect(before.total_completed_assessments).toBe(5);
  });

  it('buckets by UTC month with granularity=month, and dates as midnight UTC', async () => {
    const month = completions[0]!.completed_at.slice(0, 7);
    const from = `${month}-01`;
    const next = new Date(Date.UTC(Number(month.slice(0, 4)), Number(month.slice(5, 7)), 1)).toISOString().slice(0, 10);
    const usage = (await get(usageUrl({ from, to: next, granularity: 'month' }))).json();
    expect(usage).toMatchObject({ from: `${from}T00:00:00.000Z`, to: `${next}T00:00:00.000Z`, granularity: 'month' });
    const inMonth = completions.filter((c) => c.environment === 'test' && c.completed_at.startsWith(month)).length;
    expect(usage.total_completed_assessments).toBe(inMonth);
    expect(usage.data).toEqual(expectedRows('test', 'month').filter((row) => row.period === month));
  });

  it('defaults to the current UTC month until now, by day', async () => {
    const before = Date.now();
    const usage = (await get('/v1/nature/usage')).json();
    const to = Date.parse(usage.to);
    expect(to).toBeGreaterThanOrEqual(before);
    expect(to).toBeLessThanOrEqual(Date.now());
    expect(usage.from).toBe(`${usage.to.slice(0, 7)}-01T00:00:00.000Z`);
    expect(usage.granularity).toBe('day');
    const counted = completions.filter((c) => c.environment === 'test' && c.completed_at >= usage.from && c.completed_at < usage.to).length;
    expect(usage.total_completed_assessments).toBe(counted);
  });

  it("takes now from the app's clock", async () => {
    const ahead = 40 * 24 * 60 * 60 * 1000;
    t.advance(ahead);
    try {
      const before = Date.now() + ahead;
      const usage = (await get('/v1/nature/usage')).json();
      expect(Date.parse(usage.to)).toBeGreaterThanOrEqual(before);
      expect(Date.parse(usage.to)).toBeLessThanOrEqual(Date.now() + ahead);
      expect(usage.from).toBe(`${usage.to.slice(0, 7)}-01T00:00:00.000Z`);
    } finally {
      t.advance(-ahead);
    }
  });

  it('counts nothing outside [from, to)', async () => {
    const before = await get(usageUrl({ from: '2020-01-01', to: startedAt }));
    expect(before.json()).toMatchObject({ data: [], total_completed_assessments: 0, total_completed_situational_assessments: 0 });
    const firstOnly = await get(usageUrl({ from: startedAt, to: new Date(Date.parse(completions[0]!.completed_at) + 1).toISOString() }));
    expect(firstOnly.json().total_completed_assessments).toBe(1);
    expect(firstOnly.json().data).toEqual([
      {
        key_id: keys.alice.id,
        period: completions[0]!.completed_at.slice(0, 10),
        completed_assessments: 1,
        completed_situational_assessments: 0,
      },
    ]);
  });

  it('shows a live key production usage only, and a test key none of it', async () => {
    const live = (await get(usageUrl(range), keys.live.raw)).json();
    expect(live).toMatchObject({
      object: 'usage',
      livemode: true,
      data: expectedRows('live', 'day'),
      total_completed_assessments: 1,
      total_completed_situational_assessments: 0,
    });
    expect(perKey(live.data)).toEqual({ [keys.live.id]: 1 });
    const sandbox = (await get(usageUrl(range))).json();
    expect(sandbox.data.map((row: Row) => row.key_id)).not.toContain(keys.live.id);
  });

  it('answers a read-only sk key with the same usage; refuses pk and write-only keys with 403', async () => {
    const readOnly = await get(usageUrl(range), keys.readOnly.raw);
    expect(readOnly.statusCode).toBe(200);
    expect(readOnly.json()).toEqual((await get(usageUrl(range))).json());
    for (const raw of [keys.pk.raw, keys.writeOnly.raw]) {
      const refused = await get(usageUrl(range), raw);
      expect(refused.statusCode).toBe(403);
      expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(refused.json().code).toBe('insufficient_scope');
    }
  });

  it('answers from the usage read model without reading the log', async () => {
    const expected = (await get(usageUrl(range))).json();
    const env = t.envs.test;
    const reads = [env.events, env.auditLog, env.sealedLog].flatMap((store) =>
      (['readAll', 'readStream', 'subscribeToAll'] as const).map((read) =>
        vi.spyOn(store, read).mockImplementation(() => {
          throw new Error(`the usage request called ${read} on the log`);
        }),
      ),
    );
    try {
      const response = await get(usageUrl(range));
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual(expected);
      for (const read of reads) expect(read).not.toHaveBeenCalled();
    } finally {
      for (const read of reads) read.mockRestore();
    }
  });

  it.each([
    ['a malformed from', { from: '2026-11-32' }, ['/from']],
    ['a malformed to', { to: 'tomorrow' }, ['/to']],
    ['a timestamp with an offset', { from: '2026-11-01T00:00:00+02:00' }, ['/from']],
    ['from equal to to', { from: '2026-11-02', to: '2026-11-02' }, ['/to']],
    ['from after to', { from: '2026-11-03', to: '2026-11-02T23:59:59Z' }, ['/to']],
    ['an unknown granularity', { granularity: 'week' }, ['/granularity']],
    ['an unknown parameter', { key_id: 'key_1' }, ['/key_id']],
    ['both dates malformed', { from: 'x', to: 'y' }, ['/from', '/to']],
  ])('answers 422 validation_failed to %s, naming the parameter', async (_case, query, paths) => {
    const response = await get(usageUrl(query));
    expect(response.statusCode).toBe(422);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    const problem = response.json();
    expect(problem).toMatchObject({ status: 422, code: 'validation_failed', request_id: response.headers['request-id'] });
    expect(problem.errors.map((e: { path: string }) => e.path)).toEqual(paths);
    expect(problem.errors.every((e: { in: string }) => e.in === 'query')).toBe(true);
  });

  describe('nature usage (the operator command, on the same data directory)', () => {
    const cli = (args: string[]) => runCliInProcess(['usage', ...args], { NATURE_DATA_DIR: t.dataDir });

    it('prints with --json exactly what the API answers, per environment', async () => {
      for (const [environment, raw] of [
        ['test', keys.alice.raw],
        ['live', keys.live.raw],
      ] as const) {
        const result = await cli(['--env', environment, '--from', range.from, '--to', range.to, '--json']);
        expect(result.stderr).toBe('');
        expect(result.status).toBe(0);
        expect(JSON.parse(result.stdout)).toEqual((await get(usageUrl(range), raw)).json());
      }
      const sandbox = JSON.parse((await cli(['--env', 'test', '--from', range.from, '--to', range.to, '--json'])).stdout);
      expect(perKey(sandbox.data)).toEqual({ [keys.alice.id]: 3, [keys.bob.id]: 2 });
    });

    it('prints one line per period and key (assessments, then situational assessments), then the totals', async () => {
      const result = await cli(['--env', 'test', '--from', range.from, '--to', range.to, '--granularity', 'month']);
      expect(result.status).toBe(0);
      const rows = expectedRows('test', 'month').map((row) => `${row.period}  ${row.key_id}  ${row.completed_assessments}  0`);
      expect(result.stdout).toBe([...rows, 'total  5  0', ''].join('\n'));
    });

    it.each([
      ['a malformed --from', ['--env', 'test', '--from', '2026-02-30'], /^nature: from must be a date YYYY-MM-DD/],
      ['--from after --to', ['--env', 'test', '--from', '2026-11-02', '--to', '2026-11-01'], /^nature: from .* must be before to/],
      ['an unknown --granularity', ['--env', 'test', '--granularity', 'week'], /^nature: .*granularity.*week/],
      ['an unknown --env', ['--env', 'prod'], /^nature: .*env.*prod/],
      ['no --env', [], /^nature: .*--env/],
    ])('exits 2 (a usage error) with one line on stderr for %s', async (_case, args, message) => {
      const result = await cli(args);
      expect(result.status).toBe(2);
      expect(result.stdout).toBe('');
      expect(result.stderr).toMatch(message);
      expect(result.stderr.trimEnd().split('\n')).toHaveLength(1);
    });
  });

  // Last: it stops the app and opens another on its data directory.
  it('counts again from the log, on the first start, usage an earlier version kept in bucket documents', async () => {
    const minute = completions[0]!.completed_at.slice(0, 16);
    const ranges = [
      { from: `${minute}:00Z`, to: new Date(Date.parse(`${minute}:00Z`) + 60_000).toISOString() },
      { from: completions[0]!.completed_at, to: new Date(Date.parse(completions.at(-1)!.completed_at) + 1).toISOString() },
      range,
    ];
    const expected = await Promise.all(ranges.map(async (r) => (await get(usageUrl(r))).json()));
    await t.stop();
    // The data directory as the version before counters left it: bucket documents of tallies (one of them from a
    // completion the log never had, which must not count), the step before usage counters, no counters.
    const db = new Database(join(t.dataDir, 'sandbox.read.db'));
    db.pragma('user_version = 3');
    db.prepare('DELETE FROM counters').run();
    const stale = { id: minute, tallies: [{ key_id: 'key_stale', count: 7 }] };
    db.prepare("INSERT OR REPLACE INTO documents (collection, id, doc, position) VALUES ('usage', ?, ?, ?)").run(
      minute,
      JSON.stringify(stale),
      '1'.padStart(40, '0'),
    );
    db.close();

    const reopened = await openTestApp({ NATURE_DATA_DIR: t.dataDir });
    try {
      const reports = await eventually(async () => {
        const usage = await Promise.all(
          ranges.map(async (r) => (await reopened.app.inject({ method: 'GET', url: usageUrl(r), headers: auth(keys.alice.raw) })).json()),
        );
        return usage.every((report, i) => report.total_completed_assessments === expected[i].total_completed_assessments)
          ? usage
          : undefined;
      });
      expect(reports).toEqual(expected);
      expect(JSON.stringify(reports)).not.toContain('key_stale');
    } finally {
      await reopened.close();
    }
    const after = new Database(join(t.dataDir, 'sandbox.read.db'), { readonly: true });
    expect(after.prepare("SELECT count(*) AS n FROM documents WHERE collection = 'usage' AND doc LIKE '%tallies%'").get()).toEqual({
      n: 0,
    });
    after.close();
  });
});
