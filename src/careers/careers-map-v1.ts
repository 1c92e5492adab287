import type { Family } from '../scoring/constructs.js';

/**
 * The mapping `careers-map-v1`: how each of the 19 constructs is read from the O*NET descriptors a release's subset
 * has. Data, not code: occupation-profiles.ts applies it, /docs/careers renders it. A new version is a new table and
 * re-derives every profile; every match names the mapping through the catalogue version.
 */
export const careersMapVersion = 'careers-map-v1';

/**
 * Where a descriptor's value comes from, each read per occupation:
 * - `interest`: Interests.txt, scale OI (1..7);
 * - `workStyle`: Work Styles.txt, scale IM (1..5);
 * - `workValue`: Work Values.txt, scale EX (1..7);
 * - `skill`: Skills.txt, importance IM (1..5) × level LV (0..7);
 * - `activity`: the share of the occupation's task-to-DWA links whose DWA falls under `id`, which may name a
 *   generalized work activity (4.A.x.x.n), an intermediate one (…Inn) or a detailed one (…Inn.Dnn);
 * - `jobZone`: Job Zones.txt (1..5).
 */
export type DescriptorSource = 'interest' | 'workStyle' | 'workValue' | 'skill' | 'activity' | 'jobZone';

export interface MapTerm {
  source: DescriptorSource;
  /** The O*NET element, IWA or DWA id; '' for the job zone. */
  id: string;
  /** The descriptor's name in the release, for the docs table. */
  label: string;
  /** Its share of the construct (a construct's weights sum to 1). */
  weight: number;
  reason: string;
}

export interface MapRow {
  construct: string;
  family: Family;
  terms: readonly MapTerm[];
  /** How directly the subset measures the construct: `direct`, or what stands in and how good it is. */
  standIn: string;
}

const t = (source: DescriptorSource, id: string, label: string, weight: number, reason: string): MapTerm => ({
  source,
  id,
  label,
  weight,
  reason,
});

const natureRows: MapRow[] = [
  {
    construct: 'administrative',
    family: 'natures',
    standIn: 'direct: Conventional interest and the administrative work activities describe it well',
    terms: [
      t('interest', '1.B.1.f', 'Conventional', 0.35, 'RIASEC Conventional is liking ordered, rule-bound data work'),
      t('activity', '4.A.4.c.1', 'Performing Administrative Activities', 0.2, 'the work activity named for it'),
      t('activity', '4.A.3.b.6', 'Documenting/Recording Information', 0.15, 'keeping records is the core of clerical work'),
      t('activity', '4.A.2.a.2', 'Processing Information', 0.1, 'compiling, coding and checking data'),
      t('workStyle', '1.C.5.b', 'Attention to Detail', 0.1, 'exactness is what administration asks of people'),
      t('workStyle', '1.C.5.a', 'Dependability', 0.1, 'reliability in routine obligations'),
    ],
  },
  {
    construct: 'adventurous',
    family: 'natures',
    standIn:
      'partial: the subset has no hazard or outdoor ratings (Work Context is absent); physical, mobile work done under stress stands in — fair for field and emergency jobs, blind to risk in desk jobs (e.g. trading)',
    terms: [
      t('interest', '1.B.1.a', 'Realistic', 0.2, 'hands-on, outdoor and physical work'),
      t('activity', '4.A.3.a.1', 'Performing General Physical Activities', 0.2, 'climbing, crawling and moving about'),
      t('activity', '4.A.3.a.4', 'Operating Vehicles, Mechanized Devices, or Equipment', 0.15, 'mobile work away from a desk'),
      t('workStyle', '1.C.4.b', 'Stress Tolerance', 0.2, 'keeping calm under pressure and danger'),
      t('workStyle', '1.C.4.c', 'Adaptability/Flexibility', 0.15, 'welcoming change and variety'),
      t('workStyle', '1.C.6', 'Independence', 0.1, 'working on one’s own, often in the field'),
    ],
  },
  {
    construct: 'creative',
    family: 'natures',
    standIn: 'direct: Artistic interest, Innovation and Thinking Creatively',
    terms: [
      t('interest', '1.B.1.c', 'Artistic', 0.4, 'RIASEC Artistic is self-expression and original work'),
      t('workStyle', '1.C.7.a', 'Innovation', 0.25, 'creativity and alternative thinking to develop new ideas'),
      t('activity', '4.A.2.b.2', 'Thinking Creatively', 0.25, 'developing, designing or creating new things'),
      t('skill', '2.B.3.b', 'Technology Design', 0.1, 'creativity in technical form'),
    ],
  },
  {
    construct: 'educative',
    family: 'natures',
    standIn: 'direct: Instructing, Learning Strategies and the teaching activities',
    terms: [
      t('activity', '4.A.4.b.3', 'Training and Teaching Others', 0.3, 'the work activity named for it'),
      t('skill', '2.B.1.e', 'Instructing', 0.25, 'teaching others how to do something'),
      t('skill', '2.A.2.c', 'Learning Strategies', 0.15, 'choosing methods to teach and learn'),
      t('activity', '4.A.4.b.5', 'Coaching and Developing Others', 0.15, 'developing others’ abilities'),
      t('interest', '1.B.1.d', 'Social', 0.15, 'RIASEC Social includes teaching'),
    ],
  },
  {
    construct: 'entertaining',
    family: 'natures',
    standIn:
      'partial: performing arts DWAs and public-facing work stand in for entertaining others — good for performers and hosts, weak for informal entertaining in other jobs',
    terms: [
      t('activity', '4.A.4.a.8.I01', 'Present arts or entertainment performances.', 0.35, 'performing for an audience'),
      t('activity', '4.A.4.a.8', 'Performing for or Working Directly with the Public', 0.2, 'entertaining or serving the public'),
      t('interest', '1.B.1.c', 'Artistic', 0.2, 'performance is artistic expression'),
      t('workStyle', '1.C.3.c', 'Social Orientation', 0.15, 'preferring to work with others, being connected'),
      t('activity', '4.A.4.b.4.I03', 'Coordinate artistic or entertainment activities.', 0.1, 'staging and directing shows'),
    ],
  },
  {
    construct: 'entrepreneurial',
    family: 'natures',
    standIn: 'direct: Enterprising interest, Initiative, selling and spotting opportunities',
    terms: [
      t('interest', '1.B.1.e', 'Enterprising', 0.35, 'RIASEC Enterprising is starting projects, leading, taking risks'),
      t('workStyle', '1.C.1.c', 'Initiative', 0.15, 'willingness to take on responsibilities and challenges'),
      t('activity', '4.A.4.a.6', 'Selling or Influencing Others', 0.15, 'convincing buyers and backers'),
      t('activity', '4.A.1.b.1.I02', 'Identify business or organizational opportunities.', 0.15, 'spotting openings is enterprise'),
      t('skill', '2.B.1.c', 'Persuasion', 0.1, 'changing minds and behaviour'),
      t('skill', '2.B.5.b', 'Management of Financial Resources', 0.1, 'running the money of a venture'),
    ],
  },
  {
    construct: 'healing',
    family: 'natures',
    standIn: 'direct: caring and treatment activities, Concern for Others',
    terms: [
      t('activity', '4.A.4.a.5', 'Assisting and Caring for Others', 0.2, 'personal and medical care'),
      t('activity', '4.A.4.a.5.I12', 'Treat injuries, illnesses, or diseases.', 0.15, 'treatment is healing'),
      t('activity', '4.A.2.a.1.I06', 'Evaluate patient or client condition or treatment options.', 0.15, 'diagnosis'),
      t('activity', '4.A.4.a.5.I03', 'Administer basic health care or medical treatments.', 0.1, 'hands-on care'),
      t('activity', '4.A.1.a.1.I12', 'Collect information about patients or clients.', 0.05, 'clinical history-taking'),
      t('workStyle', '1.C.3.b', 'Concern for Others', 0.2, 'sensitivity to others’ needs and feelings'),
      t('interest', '1.B.1.d', 'Social', 0.15, 'RIASEC Social includes helping and healing'),
    ],
  },
  {
    construct: 'protective',
    family: 'natures',
    standIn: 'direct: the protection, security and investigation activities',
    terms: [
      t(
        'activity',
        '4.A.3.a.1.I02',
        'Protect people or property from threats such as fires or flooding.',
        0.2,
        'the core of protective work',
      ),
      t('activity', '4.A.3.a.1.I11', 'Maintain safety or security.', 0.15, 'guarding and patrolling'),
      t('activity', '4.A.1.a.2.I07', 'Monitor safety or security of work areas, facilities, or properties.', 0.15, 'watchfulness'),
      t('activity', '4.A.1.a.1.I03', 'Investigate criminal or legal matters.', 0.1, 'law enforcement'),
      t('activity', '4.A.4.b.4.I15', 'Direct security or safety activities or operations.', 0.1, 'commanding protection'),
      t('workStyle', '1.C.4.b', 'Stress Tolerance', 0.1, 'acting under threat'),
      t('workStyle', '1.C.5.c', 'Integrity', 0.1, 'trustworthiness in a position of protection'),
      t('interest', '1.B.1.a', 'Realistic', 0.1, 'protective services are Realistic-Social-Enterprising'),
    ],
  },
  {
    construct: 'providing',
    family: 'natures',
    standIn:
      'partial: service orientation and food and personal-service activities stand in for providing for others’ needs — fair; the subset cannot tell a provider’s motive',
    terms: [
      t('skill', '2.B.1.f', 'Service Orientation', 0.25, 'actively looking for ways to help people'),
      t('activity', '4.A.3.a.1.I15', 'Provide food or beverage services.', 0.15, 'feeding others'),
      t('activity', '4.A.3.a.2.I03', 'Prepare foods or beverages.', 0.15, 'feeding others'),
      t('activity', '4.A.3.a.1.I17', 'Perform agricultural activities.', 0.1, 'producing what others live on'),
      t('workValue', '1.B.2.d', 'Relationships', 0.15, 'the value of service to others and co-workers'),
      t('workStyle', '1.C.5.a', 'Dependability', 0.1, 'others rely on what is provided'),
      t('activity', '4.A.4.a.5', 'Assisting and Caring for Others', 0.1, 'looking after others’ needs'),
    ],
  },
];

const intelligenceRows: MapRow[] = [
  {
    construct: 'bodily_fine_motor',
    family: 'intelligences',
    standIn:
      'partial: no dexterity abilities in the subset; handling, repair and installation work stands in — fair for trades and crafts, and it also picks up heavy handling',
    terms: [
      t('activity', '4.A.3.a.2', 'Handling and Moving Objects', 0.3, 'working with hands and tools'),
      t('activity', '4.A.3.b.5', 'Repairing and Maintaining Electronic Equipment', 0.15, 'precise manual work'),
      t('skill', '2.B.3.l', 'Repairing', 0.15, 'repairing with the needed tools'),
      t('skill', '2.B.3.d', 'Installation', 0.1, 'fitting parts together'),
      t('activity', '4.A.3.a.2.I28', 'Create decorative objects or parts of objects.', 0.1, 'craft work'),
      t('workStyle', '1.C.5.b', 'Attention to Detail', 0.1, 'precision'),
      t('interest', '1.B.1.a', 'Realistic', 0.1, 'hands-on work'),
    ],
  },
  {
    construct: 'bodily_gross_motor',
    family: 'intelligences',
    standIn: 'partial: no strength or stamina abilities in the subset; the physical work activities stand in — good',
    terms: [
      t('activity', '4.A.3.a.1', 'Performing General Physical Activities', 0.45, 'whole-body work: climbing, lifting, moving'),
      t(
        'activity',
        '4.A.3.a.1.I16',
        'Perform athletic activities for fitness, competition, or artistic purposes.',
        0.15,
        'sport and dance',
      ),
      t('activity', '4.A.3.a.1.I07', 'Perform general construction or extraction activities.', 0.1, 'heavy physical labour'),
      t('interest', '1.B.1.a', 'Realistic', 0.3, 'physical, outdoor and hands-on work'),
    ],
  },
  {
    construct: 'interpersonal',
    family: 'intelligences',
    standIn: 'direct: Social Perceptiveness, Social interest and the relationship activities',
    terms: [
      t('skill', '2.B.1.a', 'Social Perceptiveness', 0.2, 'being aware of others’ reactions'),
      t('interest', '1.B.1.d', 'Social', 0.15, 'working with, helping and understanding people'),
      t('activity', '4.A.4.a.4', 'Establishing and Maintaining Interpersonal Relationships', 0.15, 'the work activity named for it'),
      t('activity', '4.A.4.a.7', 'Resolving Conflicts and Negotiating with Others', 0.1, 'reading and reconciling people'),
      t('skill', '2.B.1.d', 'Negotiation', 0.1, 'bringing others together'),
      t('workStyle', '1.C.3.a', 'Cooperation', 0.1, 'being pleasant and good-natured with others'),
      t('workStyle', '1.C.3.c', 'Social Orientation', 0.1, 'preferring to work with others'),
      t('workValue', '1.B.2.d', 'Relationships', 0.1, 'valuing friendly co-workers and service'),
    ],
  },
  {
    construct: 'intrapersonal',
    family: 'intelligences',
    standIn: 'stand-in: self-knowledge is not rated by O*NET; self-directed work styles and the Independence value stand in — poor to fair',
    terms: [
      t('workStyle', '1.C.6', 'Independence', 0.2, 'guiding oneself with little supervision'),
      t('workValue', '1.B.2.f', 'Independence', 0.2, 'valuing working on one’s own and making decisions'),
      t('workStyle', '1.C.4.a', 'Self-Control', 0.2, 'controlling one’s emotions'),
      t('workStyle', '1.C.1.b', 'Persistence', 0.15, 'keeping at it in the face of obstacles'),
      t('workStyle', '1.C.4.c', 'Adaptability/Flexibility', 0.15, 'adjusting oneself to change'),
      t('workStyle', '1.C.5.c', 'Integrity', 0.1, 'acting on one’s own principles'),
    ],
  },
  {
    construct: 'linguistic',
    family: 'intelligences',
    standIn: 'direct: Writing, Reading Comprehension, Speaking and writing activities',
    terms: [
      t('skill', '2.A.1.c', 'Writing', 0.25, 'communicating in writing'),
      t('skill', '2.A.1.a', 'Reading Comprehension', 0.2, 'understanding written text'),
      t('skill', '2.A.1.d', 'Speaking', 0.15, 'conveying information by talking'),
      t('activity', '4.A.3.b.6.I16', 'Write material for artistic or commercial purposes.', 0.15, 'writing as the work'),
      t('activity', '4.A.4.a.1', 'Interpreting the Meaning of Information for Others', 0.15, 'translating and explaining'),
      t('skill', '2.A.1.b', 'Active Listening', 0.1, 'understanding spoken language'),
    ],
  },
  {
    construct: 'logical',
    family: 'intelligences',
    standIn: 'direct: Mathematics, Science, Analytical Thinking, Investigative interest',
    terms: [
      t('skill', '2.A.1.e', 'Mathematics', 0.2, 'using mathematics to solve problems'),
      t('interest', '1.B.1.b', 'Investigative', 0.15, 'RIASEC Investigative is ideas, analysis and research'),
      t('workStyle', '1.C.7.b', 'Analytical Thinking', 0.15, 'analysing information and using logic'),
      t('skill', '2.A.1.f', 'Science', 0.1, 'scientific rules and methods'),
      t('skill', '2.B.3.e', 'Programming', 0.1, 'writing programs is applied logic'),
      t('skill', '2.B.2.i', 'Complex Problem Solving', 0.1, 'reasoning through complex problems'),
      t('activity', '4.A.2.a.4', 'Analyzing Data or Information', 0.1, 'breaking information into parts'),
      t('jobZone', '', 'Job Zone', 0.1, 'abstract reasoning grows with the preparation a job needs'),
    ],
  },
  {
    construct: 'musical',
    family: 'intelligences',
    standIn:
      'stand-in: no music descriptor; the five music DWAs (compose, perform, study scores, tune instruments, coordinate rehearsals) with a little Artistic interest — good for the few music occupations, nothing elsewhere',
    terms: [
      t('activity', '4.A.4.a.8.I01.D03', 'Perform music for the public.', 0.25, 'performing music'),
      t('activity', '4.A.2.b.2.I25.D01', 'Create musical compositions, arrangements or scores.', 0.2, 'composing'),
      t('activity', '4.A.1.a.1.I01.D02', 'Study details of musical compositions.', 0.15, 'reading and studying music'),
      t('activity', '4.A.4.b.4.I03.D03', 'Coordinate musical rehearsals or performances.', 0.1, 'directing music'),
      t('activity', '4.A.3.a.2.I09.D01', 'Adjust tuning or functioning of musical instruments.', 0.1, 'an ear for pitch'),
      t('interest', '1.B.1.c', 'Artistic', 0.2, 'music is an artistic occupation'),
    ],
  },
  {
    construct: 'naturalistic',
    family: 'intelligences',
    standIn:
      'stand-in: no natural-world knowledge rating (Knowledge is absent); plant, animal, agricultural and environmental activities stand in — good',
    terms: [
      t('activity', '4.A.4.a.5.I04', 'Care for plants or animals.', 0.2, 'tending living things'),
      t('activity', '4.A.3.a.1.I17', 'Perform agricultural activities.', 0.15, 'farming'),
      t('activity', '4.A.1.a.2.I09', 'Monitor environmental conditions.', 0.1, 'observing the environment'),
      t('activity', '4.A.2.b.2.I08', 'Develop plans for managing or preserving natural resources.', 0.1, 'conservation'),
      t('activity', '4.A.3.a.2.I38', 'Collect environmental or biological samples.', 0.1, 'field science'),
      t('activity', '4.A.1.a.1.I08', 'Research issues related to earth sciences.', 0.1, 'earth science'),
      t('activity', '4.A.3.a.3.I11', 'Operate agricultural or forestry equipment.', 0.05, 'farm and forest work'),
      t('activity', '4.A.4.b.4.I04', 'Manage agricultural or forestry operations.', 0.05, 'running farms and forests'),
      t('activity', '4.A.3.a.2.I10', 'Train animals.', 0.05, 'working with animals'),
      t('interest', '1.B.1.a', 'Realistic', 0.1, 'outdoor work'),
    ],
  },
  {
    construct: 'visual_graphic',
    family: 'intelligences',
    standIn: 'partial: the visual design and image-making activities with Artistic interest — good for design and media',
    terms: [
      t('activity', '4.A.2.b.2.I18', 'Create visual designs or displays.', 0.3, 'graphic and display design'),
      t('activity', '4.A.3.b.6.I05', 'Record images with photographic or audiovisual equipment.', 0.15, 'photography and film'),
      t('activity', '4.A.2.b.2.I25', 'Create artistic designs or performances.', 0.1, 'visual art'),
      t('activity', '4.A.1.a.1.I01', 'Study details of artistic productions.', 0.1, 'reading visual work'),
      t('activity', '4.A.3.a.2.I28', 'Create decorative objects or parts of objects.', 0.1, 'decorative craft'),
      t('interest', '1.B.1.c', 'Artistic', 0.25, 'visual arts are Artistic work'),
    ],
  },
  {
    construct: 'visual_spatial',
    family: 'intelligences',
    standIn:
      'partial: no spatial ability rating; drafting, designing structures, operating vehicles and geospatial analysis stand in — fair',
    terms: [
      t('activity', '4.A.3.b.2', 'Drafting, Laying Out, and Specifying Technical Devices, Parts, and Equipment', 0.3, 'drawing in space'),
      t('activity', '4.A.2.b.2.I11', 'Design structures or facilities.', 0.2, 'architecture and building design'),
      t('activity', '4.A.3.a.4', 'Operating Vehicles, Mechanized Devices, or Equipment', 0.15, 'steering through space'),
      t('activity', '4.A.2.a.4.I01', 'Analyze environmental or geospatial data.', 0.1, 'maps and terrain'),
      t('skill', '2.B.3.b', 'Technology Design', 0.15, 'designing equipment and technology'),
      t('interest', '1.B.1.a', 'Realistic', 0.1, 'working with objects and space'),
    ],
  },
];

/** The table: one row per construct, natures then intelligences, each alphabetical. */
export const careersMapV1: readonly MapRow[] = [...natureRows, ...intelligenceRows];
