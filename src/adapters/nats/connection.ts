import { type ConnectionOptions, connect, Events, type JetStreamClient, type JetStreamManager, type NatsConnection } from 'nats';
import type { Logger } from 'pino';
import type { NatsAccess } from '../../settings/config.js';
import { BackendTimeoutError, within } from '../../support/backend-timeout.js';
import { urlHosts } from '../../support/backend-urls.js';
import { type Backoff, backoffDelay } from '../../support/backoff.js';
import { OperatorError } from '../../support/operator-errors.js';
import { pause } from '../../support/pause.js';
import { connectionOptions, isRefusedLogin, NatsLoginRefusedError } from './access.js';

/** How long start-up waits by default for NATS (connection and JetStream) before it gives up. */
export const CONNECT_TIMEOUT_MS = 10_000;

/** After the first connection: reconnect without limit, and notice a dead peer within half a minute. */
const RESILIENCE: Partial<ConnectionOptions> = {
  maxReconnectAttempts: -1,
  reconnectTimeWait: 1000,
  reconnectJitter: 1000,
  pingInterval: 10_000,
  maxPingOut: 3,
};

/**
 * The pauses between attempts to replace a connection that closed, and to renew what the server lost: every
 * replica lost the same server, so each pause is shortened by up to a fifth at random (as the client's own
 * reconnects are jittered).
 */
const REPLACE_BACKOFF: Backoff = { firstDelayMs: 1000, maxDelayMs: 30_000, jitter: 0.2 };
const RENEW_BACKOFF: Backoff = { firstDelayMs: 500, maxDelayMs: 30_000, jitter: 0.2 };

/**
 * A connection to NATS that outlives outages of any length. The client reconnects without limit; a
 * connection that closes anyway (the server refused it for good, say) is replaced by a new one. After
 * either, `renew` runs (the bus declares its streams again: the server may be back without them) and
 * every listener hears of it: a pull the server held may be gone, so consumers start afresh.
 */
export class NatsLink {
  private closing = false;
  /** Aborted by close(): cuts short the waits between attempts to replace or renew the connection. */
  private readonly stopping = new AbortController();
  private renewing: Promise<void> | undefined;
  private readonly listeners = new Set<() => void>();
  private connection!: { nc: NatsConnection; js: JetStreamClient; jsm: JetStreamManager };

  private constructor(
    /** Where and how to log in (secrets included): kept for connections that replace a closed one. */
    private readonly options: Partial<ConnectionOptions>,
    private readonly name: string,
    private readonly renew: (jsm: JetStreamManager) => Promise<void>,
    private readonly access: NatsAccess,
    private readonly logger: Logger | undefined,
  ) {}

  /**
   * Connects, or fails within `timeoutMs` with one line that names the server (never its credentials): a
   * server that cannot be reached at start-up is a configuration error, not an outage.
   */
  static async open(
    access: NatsAccess,
    name: string,
    renew: (jsm: JetStreamManager) => Promise<void>,
    timeoutMs = CONNECT_TIMEOUT_MS,
    logger?: Logger,
  ): Promise<NatsLink> {
    const link = new NatsLink(await connectionOptions(access), name, renew, access, logger);
    const server = `NATS at ${urlHosts(access.url)}`;
    const opening = (async () => {
      try {
        await link.attach(await connect({ ...link.options, name, timeout: timeoutMs, ...RESILIENCE }));
      } catch (error) {
        if (isRefusedLogin(error)) throw new OperatorError(`${server} ${new NatsLoginRefusedError(access, error).message}`);
        throw new Error(`cannot reach ${server}: ${(error as Error).message}`);
      }
      try {
        await renew(link.jsm);
      } catch (error) {
        throw new Error(`${server} refused the bus's streams: ${(error as Error).message}`);
      }
    })();
    try {
      await within(timeoutMs, opening);
      return link;
    } catch (error) {
      link.closing = true;
      // A connection made after the deadline is closed as it arrives (link.closing).
      await link.connection?.nc.close();
      opening.catch(() => undefined);
      throw error instanceof BackendTimeoutError ? new BackendTimeoutError(`${server} did not answer within ${timeoutMs} ms`) : error;
    }
  }

  get nc(): NatsConnection {
    return this.connection.nc;
  }

  get js(): JetStreamClient {
    return this.connection.js;
  }

  get jsm(): JetStreamManager {
    return this.connection.jsm;
  }

  /** Calls `listener` after each reconnect or replaced connection; returns the call that stops it. */
  onRenewed(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get closed(): boolean {
    return this.closing;
  }

  async close(): Promise<void> {
    this.closing = true;
    this.stopping.abort();
    if (!this.connection.nc.isClosed()) await this.connection.nc.drain();
  }

  /** Makes `nc` this link's connection, unless the link was closed meanwhile (then `nc` is closed too); whether it did. */
  private async attach(nc: NatsConnection): Promise<boolean> {
    const jsm = this.closing ? undefined : await nc.jetstreamManager();
    if (this.closing || jsm === undefined) {
      await nc.close();
      return false;
    }
    this.connection = { nc, js: nc.jetstream(), jsm };
    void this.watch(nc);
    return true;
  }

  private async watch(nc: NatsConnection): Promise<void> {
    const status = nc.status();
    void nc.closed().then(() => {
      // The client leaves its status listeners open after a close.
      (status as { stop?: () => void }).stop?.();
      if (!this.closing) void this.replace();
    });
    for await (const { type } of status)
      if (type === Events.Reconnect) this.renewing ??= this.renewed().finally(() => (this.renewing = undefined));
  }

  private async replace(): Promise<void> {
    for (let attempt = 1; !this.closing; attempt++) {
      try {
        if (await this.attach(await connect({ ...this.options, name: this.name, timeout: CONNECT_TIMEOUT_MS, ...RESILIENCE })))
          await this.renewed();
        return;
      } catch (error) {
        // Credentials that expired or were revoked since start-up, say: the operator must hear of it.
        if (isRefusedLogin(error))
          this.logger?.error(
            { nats: urlHosts(this.access.url) },
            `NATS ${new NatsLoginRefusedError(this.access, error).message}; trying again`,
          );
        else this.logger?.warn({ err: error, nats: urlHosts(this.access.url) }, 'could not connect to NATS again; trying again');
        await pause(backoffDelay(REPLACE_BACKOFF, attempt), this.stopping.signal);
      }
    }
  }

  /** Runs `renew` until it succeeds (JetStream may still be starting), then tells the listeners. */
  private async renewed(): Promise<void> {
    for (let attempt = 1; !this.closing; attempt++) {
      try {
        await this.renew(this.jsm);
        break;
      } catch {
        if (this.nc.isClosed()) return;
        await pause(backoffDelay(RENEW_BACKOFF, attempt), this.stopping.signal);
      }
    }
    for (const listener of this.listeners) listener();
  }
}
