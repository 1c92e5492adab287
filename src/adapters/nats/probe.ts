import { connect } from 'nats';

/** Resolves once the NATS server at `url` accepts a connection and answers JetStream (the bus needs it), without reconnecting. */
export async function probeNats(url: string, timeoutMs: number): Promise<void> {
  const connection = await connect({ servers: url, timeout: timeoutMs, reconnect: false, name: 'nature-startup-probe' });
  try {
    // Reads the account's JetStream information; a server without JetStream answers that with a bare "503".
    await connection.jetstreamManager().catch((error: unknown) => {
      throw error instanceof Error && error.message === '503' ? new Error('JetStream is not enabled on this server (start nats-server with -js)') : error;
    });
  } finally {
    await connection.close();
  }
}
