/**
 * `npm run example:embed [-- --port 3001] [-- --data-dir DIR]`: the API, the keys, the caller's server and its
 * webhook receiver, then the URL to open. Ctrl-C stops everything.
 */
import { parseArgs } from 'node:util';
import { startExample } from './example.js';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.EXAMPLE_PORT ?? '3001' },
    'data-dir': { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  console.log('usage: npm run example:embed [-- --port PORT (default 3001, 0: any)] [-- --data-dir DIR (default: a temporary one)]');
  process.exit(0);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`example: --port must be a port number, not ${values.port}`);
  process.exit(2);
}

console.log('Starting the Nature Profile API, minting keys and starting the caller server…');
const example = await startExample({ port, ...(values['data-dir'] !== undefined && { dataDir: values['data-dir'] }) }).catch(
  (error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    console.error(`example: could not start: ${message}`);
    if (/EADDRINUSE/.test(message)) console.error(`example: port ${port} is taken; try npm run example:embed -- --port 0`);
    process.exit(1);
  },
);

console.log(`
  API                      ${example.apiUrl}  (data in ${example.dataDir})
  secret key (server only) ${example.secretKey.id}
  publishable key          ${example.publishableKey.id}, allowed from ${new URL(example.pageUrl).origin} only
  webhook endpoint         ${example.webhookEndpointId} -> ${new URL('/webhooks', example.otherOriginUrl).href}

  Open ${example.pageUrl}
  (${example.otherOriginUrl} is the same page on an origin the key does not allow: the component says so.)

  Ctrl-C stops everything.
`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping…');
    void example.stop().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error('example: stop failed:', error);
        process.exit(1);
      },
    );
  });
}
