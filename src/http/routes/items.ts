import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { type Language, languages } from '../../scoring/languages.js';
import { constantAnswer } from '../constant-answers.js';
import type { RouteRequest } from '../route-handler.js';
import { itemBankIn, listItemsSchema } from './items-schemas.js';

/** The banks are constant: the serializer makes each one's bytes once (constant-answers.ts). */
const itemBanks = Object.fromEntries(languages.map((language) => [language, constantAnswer(itemBankIn(language))])) as Record<
  Language,
  ReturnType<typeof itemBankIn>
>;

export function registerItemRoutes(app: FastifyInstance): void {
  app.withTypeProvider<ZodTypeProvider>().get('/v1/nature/items', { config: { publishable: true }, schema: listItemsSchema }, listItems);
}

function listItems(request: RouteRequest<typeof listItemsSchema>) {
  return itemBanks[request.query.language];
}
