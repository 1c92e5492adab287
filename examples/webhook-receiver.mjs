// A webhook receiver for development: verifies each delivery with the signing secret and prints the event.
//   NATURE_WEBHOOK_SECRET=whsec_… node examples/webhook-receiver.mjs    (PORT, default 3000; path /webhooks)
import { createServer } from 'node:http';
import { verifyWebhook } from '@nature-profile/client';

const secret = process.env.NATURE_WEBHOOK_SECRET;
if (!secret) {
  console.error("webhook-receiver: set NATURE_WEBHOOK_SECRET to the endpoint's (or `nature listen`'s) signing secret");
  process.exit(2);
}
const port = Number(process.env.PORT || 3000);

createServer((request, response) => {
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    try {
      // The raw bytes, as they were signed.
      const event = verifyWebhook(Buffer.concat(chunks), request.headers, secret);
      console.log(`verified ${event.type} ${event.id} ${JSON.stringify(event.data)}`);
      response.writeHead(204).end();
    } catch (error) {
      console.log(`refused: ${error.message}`);
      response.writeHead(400).end();
    }
  });
}).listen(port, '127.0.0.1', () => console.log(`webhook-receiver: listening on http://127.0.0.1:${port}/webhooks`));
