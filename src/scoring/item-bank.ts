import { type Construct, constructs } from './constructs.js';
import { frenchScaleLabels, frenchStatements } from './item-bank-fr.js';
import type { Language } from './languages.js';

export const ITEM_SET_VERSION = 'mn76-items-v1';
const ITEMS_PER_CONSTRUCT = 4;

/** The Likert scale every item is answered on. */
export const scale = {
  min: 1,
  max: 5,
  labels: [
    { value: 1, label: 'Not at all like me' },
    { value: 2, label: 'A little like me' },
    { value: 3, label: 'Somewhat like me' },
    { value: 4, label: 'Very much like me' },
    { value: 5, label: 'Exactly like me' },
  ],
} as const;

/** This project's own first-person statements, four per construct, all positively keyed. */
const englishStatements: Record<Construct, readonly [string, string, string, string]> = {
  administrative: [
    'I like keeping records, schedules and files in good order.',
    'I enjoy planning how a piece of work should be done, step by step.',
    'I notice when a process wastes effort and want to improve it.',
    'I feel satisfied when paperwork is complete and accurate.',
  ],
  adventurous: [
    'I am drawn to activities that carry some physical risk.',
    'I would rather explore an unknown place than return to a familiar one.',
    'I get restless when life becomes too routine.',
    'I enjoy challenges that test my courage.',
  ],
  creative: [
    'I often come up with new ideas for how things could be.',
    'I like making things that did not exist before.',
    'I enjoy expressing myself through art, design, writing or music.',
    'I look for original solutions rather than the usual ones.',
  ],
  educative: [
    'I enjoy explaining things until others understand them.',
    'I feel rewarded when someone learns something because of me.',
    'People often come to me to learn how to do something.',
    'I like preparing material that helps others learn.',
  ],
  entertaining: [
    'I enjoy being the one who makes people laugh.',
    'I feel energised when I perform in front of others.',
    'I like to bring life to a gathering.',
    'I enjoy telling stories to an audience.',
  ],
  entrepreneurial: [
    'I spot opportunities to start something new.',
    'I enjoy persuading people to back an idea.',
    'I am comfortable taking a calculated financial risk.',
    'I like the idea of building my own business.',
  ],
  healing: [
    'I want to help people recover when they are hurt or ill.',
    'I notice when someone is in pain before they say so.',
    'I find caring for others meaningful work.',
    'I am drawn to ways of restoring health and wellbeing.',
  ],
  protective: [
    'I step in when I see someone being treated unfairly.',
    'I feel responsible for keeping the people around me safe.',
    'I stay calm and act when there is danger.',
    'I am drawn to roles that guard people or property.',
  ],
  providing: [
    'I enjoy making sure people have what they need.',
    'I take pride in producing things that others rely on.',
    'I like preparing food, goods or services for others.',
    'I feel good when my work supports a household or a community.',
  ],
  bodily_fine_motor: [
    'I am good at tasks that need precise hand movements.',
    'I can assemble small parts easily.',
    'I enjoy crafts such as sewing, model-making or fixing small devices.',
    'My hands stay steady when I do detailed work.',
  ],
  bodily_gross_motor: [
    'I learn sports and physical skills quickly.',
    'I like to move around while I think.',
    'I have good balance and coordination.',
    'I enjoy activities that use my whole body.',
  ],
  interpersonal: [
    'I can tell how others feel from small cues.',
    'I get along with many different kinds of people.',
    'People ask me to help settle their disagreements.',
    'I work well as part of a team.',
  ],
  intrapersonal: [
    'I know my own strengths and weaknesses well.',
    'I spend time reflecting on my goals and values.',
    'I understand why I react the way I do.',
    'I can motivate myself without encouragement from others.',
  ],
  linguistic: [
    'I express myself clearly in writing.',
    'I enjoy word games, puzzles or learning new words.',
    'I like reading for its own sake.',
    'I can explain complex ideas in simple words.',
  ],
  logical: [
    'I enjoy solving problems with numbers or logic.',
    'I look for the patterns and causes behind events.',
    'I like to test ideas one step at a time.',
    'I am quick to spot a flaw in an argument.',
  ],
  musical: [
    'I can easily keep a rhythm.',
    'I notice when a note is out of tune.',
    'A melody stays in my mind after I hear it once or twice.',
    'I enjoy playing, singing or composing music.',
  ],
  naturalistic: [
    'I notice details of plants, animals and the weather.',
    'I enjoy spending time in nature.',
    'I can tell different kinds of plants or animals apart.',
    'I care about how the natural environment is changing.',
  ],
  visual_graphic: [
    'I like to draw, sketch or paint.',
    'I have a good eye for colour and layout.',
    'I think in pictures more than in words.',
    'I enjoy designing posters, diagrams or other graphics.',
  ],
  visual_spatial: [
    'I find my way easily in places I have never been.',
    'I can picture how an object looks from another angle.',
    'I am good at reading maps and plans.',
    'I can judge distances and sizes well.',
  ],
};

export interface Item {
  id: string;
  /** The English statement. */
  text: string;
  construct: Construct;
}

/**
 * mn_001..mn_076. Constructs rotate item by item (mn_001 the first construct, mn_020 the first again),
 * so no two neighbouring items measure the same thing.
 */
export const items: readonly Item[] = Array.from({ length: constructs.length * ITEMS_PER_CONSTRUCT }, (_, index) => {
  const construct = constructs[index % constructs.length]!;
  const round = Math.floor(index / constructs.length);
  return { id: `mn_${String(index + 1).padStart(3, '0')}`, text: englishStatements[construct][round]!, construct };
});

/** The bank as a person reads it in a language: the same items, ids and scale values, in that language's words. */
export interface LocalisedBank {
  items: readonly { id: string; text: string }[];
  labels: readonly { value: number; label: string }[];
}

const frenchBank: LocalisedBank = {
  items: items.map(({ id, construct }, index) => ({
    id,
    text: frenchStatements[construct][Math.floor(index / constructs.length)]!,
  })),
  labels: scale.labels.map(({ value }, index) => ({ value, label: frenchScaleLabels[index]! })),
};

export const banks: Readonly<Record<Language, LocalisedBank>> = {
  en: { items: items.map(({ id, text }) => ({ id, text })), labels: scale.labels },
  fr: frenchBank,
};

export const itemIds: ReadonlySet<string> = new Set(items.map((item) => item.id));
export const ITEM_COUNT = items.length;
