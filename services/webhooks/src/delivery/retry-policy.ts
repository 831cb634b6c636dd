/**
 * The spec's delivery policy, exactly: 3 attempts in all (at most 2 retries); the delay before
 * retry n is exponential (base 100 ms, factor 2) with jitter over the upper half of the step, so
 * retry 1 waits 50-100 ms and retry 2 waits 100-200 ms. No auto-disable: after the last failure the
 * delivery is failed and the subscription stays active.
 */

export const MAX_ATTEMPTS = 3;
export const RETRY_BASE_MS = 100;
export const RETRY_FACTOR = 2;

/** Milliseconds to wait after failed attempt `attempt` (1 or 2) before the next one. */
export function retryDelayMs(attempt: number, random: () => number = Math.random): number {
  const ceiling = RETRY_BASE_MS * RETRY_FACTOR ** (attempt - 1);
  return Math.round(ceiling / 2 + random() * (ceiling / 2));
}

/** True when another attempt follows a failed attempt number `attempt`. */
export function hasRetryAfter(attempt: number): boolean {
  return attempt < MAX_ATTEMPTS;
}

/** A status that succeeds an attempt: 2xx only (a redirect is a failure and is not followed). */
export function isSuccessStatus(status: number): boolean {
  return status >= 200 && status <= 299;
}
