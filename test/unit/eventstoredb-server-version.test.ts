import { describe, expect, it } from 'vitest';
import { hasCheckpointFix, UnsupportedServerError } from '../../src/adapters/eventstoredb/server-version.js';

describe('EventStoreDB server versions (no server)', () => {
  it.each(['24.10.5', '24.10.14', '24.10.5.1723', '25.0.1', '25.0.1-rc.1', '25.1.0', '26.0.0', '26.1.2'])(
    'accepts %s, which has the fix for KDB-744',
    (version) => {
      expect(hasCheckpointFix(version)).toBe(true);
    },
  );

  it.each(['24.10.0', '24.10.4', '24.10.4.1550', '25.0.0', '24.6.0', '24.2.0', '23.10.7', '22.10.5', '21.10.11', 'unknown', ''])(
    'refuses %s: without the fix a filtered $all checkpoint can pass an event not sent yet',
    (version) => {
      expect(hasCheckpointFix(version)).toBe(false);
    },
  );

  it('says in one line which version the server runs and which the service needs', () => {
    const message = new UnsupportedServerError('24.10.4').message;
    expect(message).toBe(
      'runs version 24.10.4; the service needs EventStoreDB 24.10.5 or newer, or KurrentDB 25.0.1 or newer ' +
        '(the fix for KDB-744, without which the projector can skip an event); upgrade the server',
    );
    expect(message).not.toMatch(/\n/);
  });
});
