/**
 * How long a delivery is taken to last before any has ended: short, since turns given too early only come
 * back to be spaced again with what was learnt, while turns given too late hold the backlog back.
 */
const FIRST_GUESS_MS = 20;
/** Weight of the newest POST in an endpoint's typical duration. */
const WEIGHT = 0.2;

interface EndpointLoad {
  busy: number;
  /** When the last delivery turned away was told to come back (ms since the epoch). */
  lastTurn: number;
  /** How long a delivery to it typically holds its slot. */
  typicalMs: number;
}

/**
 * Delivery slots per endpoint: an endpoint holds at most `perEndpoint` deliveries at once, so one that
 * never answers (each POST waits out the timeout) cannot take every handler from the others. A delivery
 * that finds its endpoint full is given a turn later, spaced by how long that endpoint's POSTs take, so a
 * backlog comes back about as fast as the endpoint can take it rather than all at once.
 */
export class EndpointSlots {
  /** One small entry per endpoint delivered to, kept for its typical duration. */
  private readonly endpoints = new Map<string, EndpointLoad>();

  constructor(
    private readonly perEndpoint: number,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * A slot, released with how long its delivery held it (or with no duration when it was given back
   * without one: that teaches nothing); or, when the endpoint is full, how long to wait before asking again.
   * Releasing a slot twice gives it back once.
   */
  take(endpointId: string): { release: (durationMs?: number) => void } | { retryInMs: number } {
    const load = this.endpoints.get(endpointId) ?? { busy: 0, lastTurn: 0, typicalMs: FIRST_GUESS_MS };
    this.endpoints.set(endpointId, load);
    const now = this.now();
    if (load.busy >= this.perEndpoint) {
      load.lastTurn = Math.max(now, load.lastTurn) + Math.ceil(load.typicalMs / this.perEndpoint);
      return { retryInMs: load.lastTurn - now };
    }
    load.busy += 1;
    let released = false;
    return {
      release: (durationMs) => {
        if (released) return;
        released = true;
        load.busy -= 1;
        if (durationMs !== undefined) load.typicalMs += WEIGHT * (durationMs - load.typicalMs);
      },
    };
  }
}
