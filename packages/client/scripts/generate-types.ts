import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import { liveOpenApiDocument } from './openapi-document.js';

/** Where the client's types of the API live; generated, never edited (and not committed). */
export const typesFile = fileURLToPath(new URL('../src/generated/openapi.ts', import.meta.url));

/** The TypeScript types of the document the server serves now. */
export async function generateTypes(): Promise<string> {
  // A field with a default is optional in a request (the server fills it in), not required as openapi-typescript assumes by default.
  const ast = await openapiTS(await liveOpenApiDocument(), { silent: true, defaultNonNullable: false });
  return astToString(ast);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const source = await generateTypes();
  mkdirSync(dirname(typesFile), { recursive: true });
  writeFileSync(typesFile, source);
  process.stdout.write(`wrote ${typesFile}\n`);
}
