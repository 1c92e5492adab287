import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ConstructProfile } from '../../src/careers/catalogue.js';
import { occupationMatcher } from '../../src/careers/matching.js';
import { profileOf, smallCatalogue } from '../support/careers-fixture.js';
import { ofLang, servedGuide } from '../support/docs-blocks.js';
import { type ServerProcess, startServer } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

/**
 * A formula of the guide (`name = expression   (a note)`) as a function of its one variable: the symbols a reader
 * sees, translated mechanically to JavaScript.
 */
function formula(text: string): { name: string; variable: string; evaluate: (value: number) => number } {
  const found = /^(\w+) = (.+?)(?:\s{2,}\(.*\))?$/.exec(text.split('\n')[0]!.trim());
  if (!found) throw new Error(`not a formula: ${text}`);
  const expression = found[2]!.replaceAll('−', '-').replaceAll('×', '*').replaceAll('·', '*');
  const variables = [...new Set(expression.match(/[a-z_]\w*/gi) ?? [])];
  expect(variables, `the one variable of ${expression}`).toHaveLength(1);
  const evaluate = new Function(variables[0]!, `return ${expression};`) as (value: number) => number;
  return { name: found[1]!, variable: variables[0]!, evaluate };
}

/** Pearson's correlation of two series, computed here from its definition. */
function correlation(xs: number[], ys: number[]): number {
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const [mx, my] = [mean(xs), mean(ys)];
  let [sxy, sxx, syy] = [0, 0, 0];
  xs.forEach((x, i) => {
    sxy += (x - mx) * (ys[i]! - my);
    sxx += (x - mx) ** 2;
    syy += (ys[i]! - my) ** 2;
  });
  return sxy / Math.sqrt(sxx * syy);
}

/** A reproducible spread of scores, 4 decimals like a profile's. */
function seededProfile(seed: number): ConstructProfile {
  let state = seed;
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return Math.round((state / 2 ** 31) * 10_000) / 10_000;
  };
  const base = profileOf(0);
  for (const family of [base.natures, base.intelligences] as Record<string, number>[])
    for (const name of Object.keys(family)) family[name] = next();
  return base;
}

describe('/docs/careers-matching, its formula evaluated against the matcher', () => {
  const dir = tempDir();
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer({ NATURE_DATA_DIR: dir.path });
  });
  afterAll(async () => {
    server.process.kill('SIGKILL');
    await server.exited;
    dir.cleanup();
  });

  it('gives, for r computed from each match’s own explanation, the fit the matcher gives (to its 4 decimals); 0..1, 0.5 for no relation', async () => {
    const blocks = await servedGuide(server, 'careers-matching');
    expect(blocks.map((block) => block.lang)).toEqual(['text']);
    const fit = formula(ofLang(blocks, 'text')[0]!);
    expect([fit.name, fit.variable]).toEqual(['fit', 'r']);
    // Its note: 0..1, and 0.5 means no relation.
    expect([fit.evaluate(-1), fit.evaluate(0), fit.evaluate(1)]).toEqual([0, 0.5, 1]);

    const match = occupationMatcher(smallCatalogue());
    const people = [
      profileOf(0.2, { healing: 0.95, interpersonal: 0.9 }),
      profileOf(0.3, { musical: 0.9, entertaining: 0.85 }),
      profileOf(0.8, { logical: 0.1, protective: 0.15 }),
      seededProfile(7),
      seededProfile(2026),
    ];
    let compared = 0;
    for (const person of people) {
      for (const found of match(person, { limit: 100 })) {
        // The person's scores and the occupation's demands, as the explanation gives them, construct by construct.
        const terms = [...Object.values(found.explanation.natures), ...Object.values(found.explanation.intelligences)];
        expect(terms).toHaveLength(19);
        const r = correlation(
          terms.map((term) => term.person),
          terms.map((term) => term.demand),
        );
        expect(Math.abs(fit.evaluate(r) - found.fit), `${found.occupation.code}: r ${r}`).toBeLessThanOrEqual(0.00005);
        compared += 1;
      }
    }
    expect(compared).toBe(people.length * 4);
    // A profile of all-equal scores has no shape: no relation to any occupation.
    for (const found of match(profileOf(0.6), { limit: 100 })) expect(found.fit).toBe(0.5);
  });
});
