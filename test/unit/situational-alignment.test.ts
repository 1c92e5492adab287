import { describe, expect, it } from 'vitest';
import { type Construct, intelligences, natures } from '../../src/scoring/constructs.js';
import { alignmentOf, type PersonScores } from '../../src/situational/alignment.js';
import { situationalNarrative } from '../../src/situational/narrative.js';

const all: Construct[] = [...natures, ...intelligences];
const each = (value: number) => Object.fromEntries(all.map((construct) => [construct, value])) as Record<Construct, number>;
const demand = { ...each(0), healing: 0.8, musical: 0.4 };

describe('how a profile meets a situation', () => {
  it('meets a demand in full at or above it, and loses what it falls short by', () => {
    const scores: PersonScores = { ...each(0.5), healing: 0.9, musical: 0.1 };
    const { constructs, overall } = alignmentOf(demand, scores);
    expect(constructs.healing).toBe(1);
    expect(constructs.musical).toBe(0.7);
    expect(overall).toBe(0.9); // (0.8 × 1 + 0.4 × 0.7) / 1.2
  });

  it('never lets a construct the situation does not draw on move the overall alignment', () => {
    const low = alignmentOf(demand, { ...each(0), healing: 0.9, musical: 0.1 });
    const high = alignmentOf(demand, { ...each(1), healing: 0.9, musical: 0.1 });
    expect(low.overall).toBe(high.overall);
    expect(low.constructs.logical).toBe(1);
  });

  it('refuses a situation that draws on nothing', () => {
    expect(() => alignmentOf(each(0), each(0.5))).toThrow(RangeError);
  });
});

describe('the situational narrative', () => {
  const alignment = alignmentOf(demand, { ...each(0.5), healing: 0.85, musical: 0.05 });

  it('names what the situation draws on, alphabetically, then how the profile meets each, then overall', () => {
    expect(situationalNarrative(['musical', 'healing'], alignment, 'en')).toBe(
      'This situation draws most on the healing nature and musical intelligence. ' +
        'The healing nature: the profile meets in full what the situation asks. ' +
        'Musical intelligence: the profile meets part of what the situation asks. ' +
        'Overall, the profile is largely aligned with this situation.',
    );
  });

  it('says the same in French, with its typography', () => {
    expect(situationalNarrative(['musical', 'healing'], alignment, 'fr')).toBe(
      "Cette situation fait surtout appel à la nature soignante et à l'intelligence musicale. " +
        'La nature soignante\u00a0: le profil répond pleinement à ce que la situation demande. ' +
        "L'intelligence musicale\u00a0: le profil répond en partie à ce que la situation demande. " +
        "Dans l'ensemble, le profil est largement en phase avec cette situation.",
    );
  });

  it('tells one construct in three sentences', () => {
    expect(situationalNarrative(['healing'], alignment, 'en').split('. ')).toHaveLength(3);
  });

  it('keeps to 3–5 sentences without a number, and needs a construct to tell', () => {
    const text = situationalNarrative(['healing', 'logical', 'musical'], alignment, 'en');
    expect(text.split('. ')).toHaveLength(5);
    expect(text).not.toMatch(/\d/);
    expect(() => situationalNarrative([], alignment, 'en')).toThrow(RangeError);
  });
});
