/**
 * The fleet's one retry policy for infrastructure that went away (RabbitMQ, Redis): the delay
 * doubles from `initialMs` up to `maxMs`, and each delay is drawn from the upper half of that
 * ceiling ("equal jitter"), so replicas that lost the broker at the same moment do not all knock
 * again at the same moment, while a retry never comes sooner than half the planned delay.
 */
export interface BackoffPolicy {
  initialMs: number;
  maxMs: number;
}

/** 100 ms, doubling, capped at 5 s: an outage costs at most ~5 s of extra delay once it ends. */
export const RECONNECT_BACKOFF: BackoffPolicy = { initialMs: 100, maxMs: 5_000 };

/** The delay before retry number `attempt` (0 for the first retry). */
export function backoffDelay(attempt: number, policy: BackoffPolicy = RECONNECT_BACKOFF): number {
  // The exponent is bounded so that a long outage cannot overflow to Infinity.
  const ceiling = Math.min(policy.maxMs, policy.initialMs * 2 ** Math.min(attempt, 30));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}

/** Counts the attempts of one retry sequence; reset() after a success. */
export class Backoff {
  private attempt = 0;

  constructor(private readonly policy: BackoffPolicy = RECONNECT_BACKOFF) {}

  /** The delay before the next attempt. */
  next(): number {
    return backoffDelay(this.attempt++, this.policy);
  }

  reset(): void {
    this.attempt = 0;
  }
}
