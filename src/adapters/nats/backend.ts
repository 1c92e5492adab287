import type { BusBackend } from '../../ports/backends.js';
import type { NatsAccess } from '../../settings/config.js';
import { NatsBus } from './bus.js';
import { probeNats } from './probe.js';

/** How the environments' streams are kept: NATURE_NATS_STREAM_REPLICAS and the stream limits. */
export interface NatsStreams {
  streamReplicas: number;
  streamLimits: { maxBytes: number; maxAgeMs: number };
}

/** The bus on NATS JetStream, each environment on its own streams. */
export function natsBusBackend(access: NatsAccess & NatsStreams, connectTimeoutMs: number): BusBackend {
  return {
    server: { name: 'NATS', variable: 'NATS_URL', url: access.url, probe: () => probeNats(access, connectTimeoutMs) },
    open: (environment, { redeliverAfterMs, logger }) =>
      NatsBus.connect({
        access,
        environment,
        ackWaitMs: redeliverAfterMs,
        replicas: access.streamReplicas,
        limits: access.streamLimits,
        connectTimeoutMs,
        logger,
      }),
  };
}
