import type { FastifySchema } from 'fastify';
import { z } from 'zod';
import { banks, ITEM_SET_VERSION, scale } from '../../scoring/item-bank.js';
import { type Language, languages } from '../../scoring/languages.js';
import { problems, success } from '../schemas.js';

// The item bank route's schema: what it takes and answers, and what the OpenAPI document says of it.

/** The bank as the API shows it in a language: it never says which construct an item measures. */
export const itemBankIn = (language: Language) => ({
  object: 'list' as const,
  data: banks[language].items.map(({ id, text }) => ({ id, object: 'item' as const, text })),
  has_more: false as const,
  item_set_version: ITEM_SET_VERSION,
  language,
  scale: { min: scale.min, max: scale.max, labels: banks[language].labels.map(({ value, label }) => ({ value, label })) },
});

const itemBankResource = z
  .object({
    object: z.literal('list'),
    data: z.array(z.object({ id: z.string().meta({ pattern: '^mn_0[0-7][0-9]$' }), object: z.literal('item'), text: z.string() })),
    has_more: z.literal(false),
    item_set_version: z.string(),
    language: z.enum(languages).describe('The language of the texts and labels.'),
    scale: z.object({ min: z.literal(1), max: z.literal(5), labels: z.array(z.object({ value: z.number().int(), label: z.string() })) }),
  })
  .meta({ id: 'ItemBank', examples: [itemBankIn('en')] });

const itemsQuery = z.strictObject({
  language: z
    .enum(languages)
    .default('en')
    .describe(
      "The language of the item texts and answer labels: en (the default) or fr. Ids, order and values are the same in every language; Accept-Language is not read. Use the assessment's language.",
    ),
});

export const listItemsSchema = {
  tags: ['assessments'],
  operationId: 'listItems',
  summary: 'The item bank',
  description:
    'All 76 items in id order, with the 1..5 answer scale, in English or, with language=fr, in French. Publishable (pk) keys may read it, so a browser can render the items (no client secret needed).',
  security: [{ apiKey: [] }],
  querystring: itemsQuery,
  response: {
    200: success('The 76 items in id order, with the answer scale, in the language asked for.', itemBankResource),
    ...problems(),
  },
} satisfies FastifySchema;
