import { describe, expect, it } from 'vitest';
import { intelligences, natures } from '../../src/scoring/constructs.js';
import { readSituation, unclear } from '../../src/situational/reading.js';

describe('reading a situation', () => {
  it('finds what a plain text draws on, and nothing it never mentions', () => {
    const reading = readSituation('Tuning an old upright piano for the choir before Sunday.', 'en');
    expect(reading.drawsOnMost[0]).toBe('musical');
    expect(reading.demand.musical).toBeGreaterThan(0.5);
    expect(reading.demand.adventurous).toBe(0);
    expect(Object.keys(reading.demand).sort()).toEqual([...natures, ...intelligences].sort());
    for (const value of Object.values(reading.demand)) expect(value).toBeGreaterThanOrEqual(0);
    for (const value of Object.values(reading.demand)) expect(value).toBeLessThanOrEqual(1);
  });

  it('counts nothing a negation rules out, within its clause only', () => {
    const said = readSituation('You will give a speech to the whole staff.', 'en');
    const denied = readSituation('There is no speech to give to the staff.', 'en');
    const afterBut = readSituation('There is no budget, but you will give a speech.', 'en');
    expect(said.demand.linguistic).toBeGreaterThan(0);
    expect(denied.demand.linguistic).toBe(0);
    expect(afterBut.demand.linguistic).toBe(said.demand.linguistic);
    // "n't" is split off as "t", and still negates.
    expect(readSituation("You don't need public speaking here.", 'en').demand.linguistic).toBe(0);
  });

  it('reads set phrases that hold a negation word as they mean, and "t" only after a word ending in n', () => {
    const taught = readSituation('She teaches children to read.', 'en').demand.educative;
    expect(taught).toBeGreaterThan(0);
    expect(readSituation('No doubt she teaches children to read.', 'en').demand.educative).toBe(taught);
    expect(readSituation('Not only she teaches children to read.', 'en').demand.educative).toBe(taught);
    expect(readSituation('T shirt: she teaches children to read.', 'en').demand.educative).toBe(taught);
    expect(readSituation('Sans doute elle enseigne aux enfants.', 'fr').demand.educative).toBeGreaterThan(0);
  });

  it('negates from French "ne" through its second word, the verb between them included', () => {
    expect(readSituation('Il soigne les patients.', 'fr').demand.healing).toBeGreaterThan(0);
    expect(readSituation('Il ne soigne pas les patients.', 'fr').demand.healing).toBe(0);
    expect(readSituation("Elle n'enseigne jamais.", 'fr').demand.educative).toBe(0);
  });

  it('counts a term near an intensity word more, near a softening word less', () => {
    const plain = readSituation('Calming patients on the ward.', 'en').demand.healing;
    const intense = readSituation('Constantly calming patients on the ward.', 'en').demand.healing;
    const softened = readSituation('Occasionally calming patients on the ward.', 'en').demand.healing;
    expect(intense).toBeGreaterThan(plain);
    expect(softened).toBeLessThan(plain);
    expect(softened).toBeGreaterThan(0);
  });

  it('reads French with its accents and elisions, "sans arrêt" as intensity and "sans" as a negation', () => {
    const plain = readSituation("Accorder le piano de l'église.", 'fr').demand.musical;
    expect(plain).toBeGreaterThan(0);
    expect(readSituation("Accorder sans arrêt le piano de l'église.", 'fr').demand.musical).toBeGreaterThan(plain);
    expect(readSituation('Le poste est sans piano ni chant.', 'fr').demand.musical).toBe(0);
    // "ne … que" is "only", not a negation.
    expect(readSituation("Elle ne fait qu'accorder le piano de l'église.", 'fr').demand.musical).toBe(plain);
    expect(readSituation('Elle soigne les patients blessés.', 'fr').drawsOnMost).toContain('healing');
  });

  it('finds a text unclear when it reads nothing, or only what is negated', () => {
    expect(unclear(readSituation('Lorem ipsum dolor sit amet, consectetur adipiscing elit.', 'en'))).toBe(true);
    expect(unclear(readSituation('There is no speech to give.', 'en'))).toBe(true);
    expect(unclear(readSituation('Tuning an old upright piano.', 'en'))).toBe(false);
  });

  it('says how much of a text it could read', () => {
    expect(readSituation('Lorem ipsum dolor sit amet, consectetur adipiscing elit.', 'en')).toMatchObject({
      knownWords: 0,
      drawsOnMost: [],
    });
    expect(readSituation('Tuning an old upright piano.', 'en').knownWords).toBeGreaterThan(0);
  });

  it('names at most three constructs, the highest first, and reads the same text the same way', () => {
    const text =
      'Leading a team of nurses through a night shift: calming frightened patients, writing the handover report, planning the rota.';
    const reading = readSituation(text, 'en');
    expect(reading.drawsOnMost.length).toBeGreaterThan(0);
    expect(reading.drawsOnMost.length).toBeLessThanOrEqual(3);
    const demands = reading.drawsOnMost.map((construct) => reading.demand[construct]);
    expect(demands).toEqual([...demands].sort((a, b) => b - a));
    expect(readSituation(text, 'en')).toEqual(reading);
  });
});
