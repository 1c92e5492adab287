import { connect } from 'nats';
import type { NatsAccess } from '../../settings/config.js';
import { connectionOptions, isRefusedLogin, NatsLoginRefusedError } from './access.js';

/**
 * Resolves once the NATS server accepts a connection with this service's credentials and answers JetStream
 * (the bus needs it), without reconnecting. A refused login says which settings hold the credentials.
 */
export async function probeNats(access: NatsAccess, timeoutMs: number): Promise<void> {
  const options = await connectionOptions(access);
  const connection = await connect({ ...options, timeout: timeoutMs, reconnect: false, name: 'nature-startup-probe' }).catch(
    (error: unknown) => {
      throw isRefusedLogin(error) ? new NatsLoginRefusedError(access, error) : error;
    },
  );
  try {
    // Reads the account's JetStream information; a server without JetStream answers that with a bare "503".
    await connection.jetstreamManager().catch((error: unknown) => {
      throw error instanceof Error && error.message === '503'
        ? new Error('JetStream is not enabled on this server (start nats-server with -js)')
        : error;
    });
  } finally {
    await connection.close();
  }
}
