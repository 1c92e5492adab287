import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ITEM_SET_VERSION, items, scale } from '../../scoring/item-bank.js';
import { problems, success } from '../schemas.js';

/** The bank as the API shows it: it never says which construct an item measures. */
const itemBank = {
  object: 'list' as const,
  data: items.map(({ id, text }) => ({ id, object: 'item' as const, text })),
  has_more: false as const,
  item_set_version: ITEM_SET_VERSION,
  language: 'en' as const,
  scale: { min: scale.min, max: scale.max, labels: [...scale.labels] },
};

const itemBankResource = z
  .object({
    object: z.literal('list'),
    data: z.array(z.object({ id: z.string().meta({ pattern: '^mn_0[0-7][0-9]$' }), object: z.literal('item'), text: z.string() })),
    has_more: z.literal(false),
    item_set_version: z.string(),
    language: z.literal('en'),
    scale: z.object({ min: z.literal(1), max: z.literal(5), labels: z.array(z.object({ value: z.number().int(), label: z.string() })) }),
  })
  .meta({ id: 'ItemBank', examples: [itemBank] });

/** Serialised once: the bank is constant. */
const itemBankJson = JSON.stringify(itemBankResource.parse(itemBank));

export function registerItemRoutes(app: FastifyInstance): void {
  // Untyped on purpose: the handler sends the serialised bank, which the zod provider's types would refuse.
  app.get(
    '/v1/nature/items',
    {
      config: { publishable: true },
      schema: {
        tags: ['assessments'],
        operationId: 'listItems',
        summary: 'The item bank',
        description:
          'All 76 items in id order, with the 1..5 answer scale. Publishable (pk) keys may read it, so a browser can render the items (no client secret needed).',
        security: [{ apiKey: [] }],
        response: {
          200: success('The 76 items in id order, with the answer scale.', itemBankResource),
          ...problems(),
        },
      },
    },
    // A JSON string with its content type is sent as it is, not serialised again per request.
    (_request, reply) => reply.type('application/json; charset=utf-8').send(itemBankJson),
  );
}
