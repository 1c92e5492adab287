import { afterEach, describe, expect, it } from 'vitest';
import { newSecret } from '../../src/domain/webhook-secrets.js';
import { DeliveryThread } from '../../src/webhooks/delivery-thread.js';
import type { SignedDelivery } from '../../src/webhooks/sender.js';
import { receiverPool } from '../support/receiver.js';

describe('delivery thread', () => {
  const receivers = receiverPool();
  afterEach(() => receivers.closeAll());
  const rules = { livemode: false, loopback: true };

  it('signs and POSTs in its worker, with every secret in force, so a receiver holding either one verifies it', async () => {
    const thread = new DeliveryThread();
    const end = thread.use();
    const receiver = await receivers.start();
    const [old, current] = [newSecret(), newSecret()];
    const delivery: SignedDelivery = {
      url: receiver.url,
      body: JSON.stringify({ id: 'evt_1', type: 'nature.assessment.completed' }),
      webhookId: 'evt_1',
      timestampSeconds: Math.floor(Date.now() / 1000),
      secrets: [current, old],
      timeoutMs: 5000,
      rules,
    };
    expect(await thread.send(delivery)).toMatchObject({ status_code: 200, error: null });
    for (const secret of [old, current]) {
      receiver.useSecret(secret);
      expect(await thread.send(delivery)).toMatchObject({ status_code: 200 });
    }
    const received = await receiver.waitFor(3);
    expect(received.slice(1).map((r) => r.verified.ok)).toEqual([true, true]);
    expect(received.map((r) => r.headers['webhook-id'])).toEqual(['evt_1', 'evt_1', 'evt_1']);
    await end();
  });

  it('answers a delivery it cannot even start with an error and goes on; stopped with its last user, it starts again for the next', async () => {
    const thread = new DeliveryThread();
    const end = thread.use();
    const receiver = await receivers.start();
    const delivery = { body: '{}', webhookId: 'evt_2', timestampSeconds: 0, secrets: [newSecret()], timeoutMs: 5000, rules };
    await expect(thread.send({ ...delivery, url: 'not a url' })).rejects.toThrow(/webhook not sent: .*Invalid URL/);
    expect(await thread.send({ ...delivery, url: receiver.url })).toMatchObject({ status_code: 200 });
    // Ending a use twice ends it once; the worker stops with it, and a dispatcher started later gets a fresh one.
    await end();
    await end();
    const again = thread.use();
    expect(await thread.send({ ...delivery, url: receiver.url })).toMatchObject({ status_code: 200 });
    await again();
    expect(receiver.received).toHaveLength(2);
  });
});
