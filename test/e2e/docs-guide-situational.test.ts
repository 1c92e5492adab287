import { describe, expect, it } from 'vitest';
import { type Construct, constructs, intelligences, natures } from '../../src/scoring/constructs.js';
import { alignmentOf } from '../../src/situational/alignment.js';
import { analyseSituation } from '../../src/situational/analysis.js';
import { englishLexicon } from '../../src/situational/lexicon-en.js';
import { readSituation } from '../../src/situational/reading.js';
import { keyCreateArgs, runCliInProcess } from '../support/cli.js';
import { gettingStarted, readerMachine, runBlocks, servedGuide } from '../support/docs-blocks.js';
import { shapeOf } from '../support/json-examples.js';
import { callServer } from '../support/processes.js';

type Scores = Record<Construct, number>;

/** "Everything is rounded to thousandths." */
const thousandths = (value: number) => Math.round(value * 1000) / 1000;

/** A line of a formula block: `name = formula`, and after a wide gap, prose. */
function formulaLines(block: string): Record<string, { formula: string; note: string | undefined }> {
  return Object.fromEntries(
    block
      .trim()
      .split('\n')
      .map((line) => {
        const [, name, formula, note] = /^(\w+)\s*=\s*(.*?)(?:\s{2,}(.*))?$/.exec(line)!;
        return [name!, { formula: formula!, note }];
      }),
  );
}

/**
 * A formula as JavaScript, symbol by symbol: − and × as operators, e^(x) and max as Math's, and Σ x as the sum of x
 * over the 19 constructs (up to the division, or the end), with each construct's demand, score and alignment.
 */
function javascriptOf(formula: string): string {
  return formula
    .replaceAll('−', '-')
    .replaceAll('×', '*')
    .replace(/e\^\(([^()]*)\)/g, 'Math.exp($1)')
    .replace(/\bmax\(/g, 'Math.max(')
    .replace(/Σ ([^/]+?)\s*(?=\/|$)/g, 'Σ((demand, score, alignment) => $1)');
}

/** `formula` as a function of `parameters`, as the guide writes it. */
// biome-ignore lint/complexity/noBannedTypes: a formula of the guide, made a function as written.
const evaluated = (formula: string, ...parameters: string[]): Function => new Function(...parameters, `return ${javascriptOf(formula)};`);

/** Scores of the 19 constructs from a profile's (or a result's) two families. */
const scoresOf = (families: { natures: Record<string, number>; intelligences: Record<string, number> }) =>
  ({ ...families.natures, ...families.intelligences }) as Scores;

/** A few demands and scores in thousandths, some demands 0, from a fixed seed: the same inputs every run. */
function sampleInputs(count: number): { demand: Scores; score: Scores }[] {
  let seed = 20261121;
  const next = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  return Array.from({ length: count }, () => {
    const demand = Object.fromEntries(constructs.map((c) => [c, next() < 0.6 ? 0 : thousandths(next())])) as Scores;
    demand.logical = thousandths(0.1 + next() * 0.9);
    return { demand, score: Object.fromEntries(constructs.map((c) => [c, thousandths(next())])) as Scores };
  });
}

describe('/docs/situational, every block run as a reader pastes it, twice', () => {
  const machine = readerMachine();

  it('asks for a situational assessment and reads it, as shown; registers the endpoint body; the event and the formulas are the real ones', async () => {
    const server = await machine.start();
    const blocks = await servedGuide(server, 'situational');
    expect(blocks.map((block) => block.lang)).toEqual(['sh', 'sh', 'json', 'json', 'json', 'text', 'text']);
    const [ask, poll, resultJson, endpointJson, eventJson, demandText, alignmentText] = blocks.map((block) => block.text) as string[];
    const example = JSON.parse(resultJson!);
    const endpointBody = JSON.parse(endpointJson!);
    const exampleEvent = JSON.parse(eventJson!);
    const situationText = /situation_context: "([^"]+)"/.exec(ask!)?.[1];
    expect(situationText).toBeDefined();
    const key = JSON.parse(
      (await runCliInProcess(keyCreateArgs('test', 'docs', ['nature:read', 'nature:write', 'situational:read']), machine.dataEnv())).stdout,
    ).key as string;
    const call = (method: string, path: string, body?: unknown) => callServer(server, key, method, path, body);

    // The formulas, translated symbol by symbol.
    const demandLine = formulaLines(demandText!).demand!;
    expect(demandLine.note).toBe('0 when the text never mentions the construct');
    const demandOf = evaluated(demandLine.formula, 'sum');
    const { alignment: alignmentLine, overall: overallLine } = formulaLines(alignmentText!);
    const alignmentOfConstruct = evaluated(alignmentLine!.formula, 'demand', 'score');
    const overallOf = evaluated(overallLine!.formula, 'Σ');
    /** The guide's alignment and overall, each rounded to thousandths. */
    const byTheGuide = (demand: Scores, score: Scores) => {
      const alignment = Object.fromEntries(constructs.map((c) => [c, thousandths(alignmentOfConstruct(demand[c], score[c]))])) as Scores;
      const Σ = (term: (demand: number, score: number, alignment: number) => number) =>
        constructs.reduce((sum, c) => sum + term(demand[c], score[c], alignment[c]), 0);
      return { overall: thousandths(overallOf(Σ)), constructs: alignment };
    };

    const terminal = [...(await gettingStarted(server)), ask!, poll!];
    for (const run of [1, 2]) {
      const output = await runBlocks(terminal, machine.dataEnv());
      const subject = /^subject (sub_\w{26})$/m.exec(output)?.[1];
      const asked = /^situational assessment (sit_\w{26})$/m.exec(output);
      expect(asked, `run ${run}:\n${output}`).not.toBeNull();
      const id = asked![1]!;
      const printedFrom = output.indexOf('{\n  "status"', asked!.index);
      const printed = JSON.parse(output.slice(printedFrom, output.indexOf('\n}', printedFrom) + 2));

      // The assessment as GET answers it: the example's shape, and the same reading of the same text.
      const real = (await call('GET', `/v1/situational/assessments/${id}`)).body;
      expect(shapeOf(real)).toEqual(shapeOf(example));
      expect(real).toMatchObject({ status: 'completed', subject_id: subject, language: 'en', method_version: example.method_version });
      expect(real.situation).toEqual(example.situation);
      expect(printed).toEqual({ status: 'completed', overall: real.alignment.overall, narrative: real.narrative });
      // Read against the subject's profile, as the code reads it.
      const profile = (await call('GET', `/v1/nature/subjects/${subject}/profile`)).body as {
        id: string;
        natures: Record<string, number>;
        intelligences: Record<string, number>;
      };
      expect(real.profile_id).toBe(profile.id);
      expect(analyseSituation(situationText!, 'en', profile)).toEqual({
        status: 'completed',
        result: { situation: real.situation, alignment: real.alignment, narrative: real.narrative },
      });
      // The example: that text against a profile with interpersonal 0.45, administrative 0.62 and linguistic 0.74.
      const stated = { natures: { administrative: 0.62 }, intelligences: { interpersonal: 0.45, linguistic: 0.74 } };
      const exampleProfile = {
        natures: Object.fromEntries(natures.map((c) => [c, 0])),
        intelligences: Object.fromEntries(intelligences.map((c) => [c, 0])),
      };
      Object.assign(exampleProfile.natures, stated.natures);
      Object.assign(exampleProfile.intelligences, stated.intelligences);
      expect(analyseSituation(situationText!, example.language, exampleProfile)).toEqual({
        status: 'completed',
        result: { situation: example.situation, alignment: example.alignment, narrative: example.narrative },
      });

      // The endpoint body, sent as it is (with a nature:write key): it listens to both events.
      const endpoint = await call('POST', '/v1/nature/webhook_endpoints', endpointBody);
      expect(endpoint.status, JSON.stringify(endpoint.body)).toBe(201);
      expect(endpoint.body).toMatchObject(endpointBody);

      // The event recorded for this assessment: the example's shape, ids and outcome only.
      let event: Record<string, any> | undefined;
      while (event === undefined) {
        const page = (await call('GET', '/v1/nature/events?limit=100')).body;
        event = page.data.find((e: Record<string, any>) => e.type === 'situational.assessment.completed' && e.data.id === id);
      }
      expect(shapeOf(event)).toEqual(shapeOf(exampleEvent));
      expect(event).toMatchObject({ object: 'event', type: exampleEvent.type, data: { id, subject_id: subject, status: 'completed' } });

      // Demand: sums the guide's rules give (strong 1, related 0.5, × 1.5 near "mostly"), against the reading.
      const related = englishLexicon.administrative.related.find((term) => /^[a-z]+$/.test(term))!;
      const readings: [string, Construct, number][] = [
        ['Paperwork.', 'administrative', 1],
        ['Paperwork and payroll.', 'administrative', 2],
        [`${related}.`, 'administrative', 0.5],
        ['Paperwork.', 'musical', 0],
        ['No need to teach anyone here: the job is mostly writing reports.', 'linguistic', 3],
        ['No need to teach anyone here: the job is mostly writing reports.', 'educative', 0],
      ];
      for (const [text, construct, sum] of readings) {
        expect(readSituation(text, 'en').demand[construct], `${construct} of "${text}"`).toBe(thousandths(demandOf(sum)));
      }
      expect(demandOf(0)).toBe(0);

      // Alignment and overall: the example's, the real result's, and a few more, against the code.
      expect(byTheGuide(scoresOf(example.situation), scoresOf(exampleProfile))).toEqual({
        overall: example.alignment.overall,
        constructs: scoresOf(example.alignment),
      });
      expect(byTheGuide(scoresOf(real.situation), scoresOf(profile))).toEqual({
        overall: real.alignment.overall,
        constructs: scoresOf(real.alignment),
      });
      for (const { demand, score } of sampleInputs(4)) expect(byTheGuide(demand, score)).toEqual(alignmentOf(demand, score));
    }
  }, 240_000);
});
