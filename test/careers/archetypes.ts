import type { ConstructProfile } from '../../src/careers/catalogue.js';
import { profileOf } from '../support/careers-fixture.js';

/**
 * Archetype profiles written by hand (not O*NET data), each with the SOC major groups (the code's first two digits)
 * a careers counsellor would expect to see among a matcher's top 10: one of them appearing is a hit. A person
 * scores 0.85 on the constructs named and 0.4 elsewhere.
 *
 * Groups: 11 management, 13 business and financial, 15 computer and mathematical, 17 architecture and engineering,
 * 19 sciences, 21 community and social service, 23 legal, 25 education, 27 arts, design, entertainment, sports and
 * media, 29 healthcare practitioners, 31 healthcare support, 33 protective service, 35 food, 39 personal care,
 * 41 sales, 43 office and administrative support, 45 farming, fishing and forestry, 47 construction and extraction,
 * 49 installation, maintenance and repair, 51 production, 53 transportation and material moving.
 */
export interface Archetype {
  name: string;
  profile: ConstructProfile;
  expected: readonly string[];
}

const archetype = (raised: readonly string[], expected: readonly string[]): Archetype => ({
  name: raised.join(' + '),
  profile: profileOf(0.4, Object.fromEntries(raised.map((name) => [name, 0.85]))),
  expected,
});

export const archetypes: readonly Archetype[] = [
  archetype(['healing', 'interpersonal'], ['29', '31', '21']),
  archetype(['logical', 'linguistic'], ['19', '23', '25', '15']),
  archetype(['bodily_gross_motor', 'adventurous', 'protective'], ['33', '55', '47']),
  archetype(['musical', 'entertaining'], ['27']),
  archetype(['naturalistic', 'providing'], ['45', '11', '19']),
  archetype(['logical'], ['15', '17', '19']),
  archetype(['logical', 'visual_spatial'], ['17']),
  archetype(['administrative', 'logical'], ['13', '43']),
  archetype(['administrative'], ['43']),
  archetype(['entrepreneurial', 'interpersonal'], ['41', '11']),
  archetype(['entrepreneurial', 'administrative'], ['11', '13']),
  archetype(['educative', 'linguistic'], ['25']),
  archetype(['educative', 'interpersonal'], ['25', '21']),
  archetype(['creative', 'visual_graphic'], ['27']),
  archetype(['creative', 'linguistic'], ['27', '25']),
  archetype(['bodily_fine_motor', 'logical'], ['49', '51', '17']),
  archetype(['bodily_fine_motor'], ['49', '51', '47']),
  archetype(['bodily_gross_motor', 'visual_spatial'], ['47', '53']),
  archetype(['providing', 'bodily_fine_motor'], ['35', '51']),
  archetype(['providing', 'interpersonal'], ['35', '39', '31']),
  archetype(['protective', 'logical', 'linguistic'], ['33', '23']),
  archetype(['healing', 'logical'], ['29', '19']),
  archetype(['naturalistic', 'logical'], ['19']),
  archetype(['naturalistic', 'bodily_gross_motor', 'adventurous'], ['45', '47']),
  archetype(['adventurous', 'visual_spatial'], ['53', '47']),
  archetype(['entertaining', 'bodily_gross_motor'], ['27', '39']),
  archetype(['interpersonal', 'intrapersonal', 'healing'], ['21', '29']),
  archetype(['linguistic', 'interpersonal', 'entrepreneurial'], ['41', '27', '23']),
  archetype(['creative', 'visual_spatial'], ['17', '27']),
  archetype(['administrative', 'healing'], ['29', '31', '43']),
  archetype(['protective', 'healing', 'adventurous'], ['33', '29']),
  archetype(['educative', 'bodily_gross_motor'], ['27', '25', '39']),
  archetype(['musical', 'educative'], ['25', '27']),
  archetype(['visual_graphic', 'logical'], ['15', '27', '17']),
];
