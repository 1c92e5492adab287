import type { Catalogue, ConstructProfile, Occupation } from '../../src/careers/catalogue.js';
import { intelligences, natures } from '../../src/scoring/constructs.js';

/** A profile of `base` everywhere but the constructs named, which get their own value. */
export function profileOf(base: number, raised: Record<string, number> = {}): ConstructProfile {
  const family = <K extends string>(names: readonly K[]) =>
    Object.fromEntries(names.map((name) => [name, raised[name] ?? base])) as Record<K, number>;
  return { natures: family(natures), intelligences: family(intelligences) };
}

const occupation = (
  code: string,
  title: string,
  jobZone: Occupation['jobZone'],
  riasec: string,
  profile: ConstructProfile | null,
): Occupation => ({
  code,
  title,
  description: `${title}: a hand-written occupation for tests, in the shape an import makes.`,
  jobZone,
  riasec,
  related: [],
  profile,
});

/**
 * A catalogue of four occupations written by hand (never O*NET data, which is not committed): a nurse, a software
 * developer, a firefighter and a musician, and one occupation the release left without a profile.
 */
export function smallCatalogue(): Catalogue {
  const occupations = [
    occupation('15-1252.00', 'Software Developers', 4, 'ICR', profileOf(0.3, { logical: 0.95, linguistic: 0.6, creative: 0.7 })),
    occupation('27-2042.00', 'Musicians and Singers', 3, 'AES', profileOf(0.25, { musical: 0.95, entertaining: 0.9, creative: 0.8 })),
    occupation('29-1141.00', 'Registered Nurses', 3, 'SIC', profileOf(0.3, { healing: 0.95, interpersonal: 0.85, educative: 0.5 })),
    occupation('33-2011.00', 'Firefighters', 2, 'RSE', profileOf(0.3, { protective: 0.95, adventurous: 0.8, bodily_gross_motor: 0.9 })),
    occupation('53-7199.00', 'Material Moving Workers, All Other', null, '', null),
  ];
  occupations[2]!.related = ['33-2011.00'];
  const careers: Catalogue['careers'] = [
    { id: 'car_sw_dev', title: 'Software Developers', titleKind: 'occupation', occupationCode: '15-1252.00' },
    { id: 'car_sw_eng', title: 'Software Engineer', titleKind: 'alternate', occupationCode: '15-1252.00' },
    { id: 'car_app_dev', title: 'Application Developer', titleKind: 'reported', occupationCode: '15-1252.00' },
    { id: 'car_musician', title: 'Musicians and Singers', titleKind: 'occupation', occupationCode: '27-2042.00' },
    { id: 'car_chanteuse', title: 'Chanteuse', titleKind: 'alternate', occupationCode: '27-2042.00' },
    { id: 'car_rn', title: 'Registered Nurses', titleKind: 'occupation', occupationCode: '29-1141.00' },
    { id: 'car_nurse_er', title: 'Emergency Room Nurse', titleKind: 'alternate', occupationCode: '29-1141.00' },
    { id: 'car_firefighter', title: 'Firefighters', titleKind: 'occupation', occupationCode: '33-2011.00' },
    { id: 'car_mover', title: 'Material Moving Workers, All Other', titleKind: 'occupation', occupationCode: '53-7199.00' },
  ];
  return {
    release: '27.0',
    mapping: 'careers-map-v1',
    occupations,
    careers,
    unprofiled: [{ code: '53-7199.00', reason: 'no Interests, Work Styles, Work Values or Skills ratings' }],
  };
}
