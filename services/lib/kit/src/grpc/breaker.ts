/**
 * One circuit breaker (opossum) per service client. While a service keeps failing for infrastructure
 * reasons (unreachable, deadline, crash) callers stop waiting on it: the breaker opens and every call
 * is refused at once with 503 "The <name> service is unavailable". After `resetTimeoutMs` one trial
 * call goes through (half open); its success closes the breaker, its failure opens it again.
 *
 * Only infrastructure failures count (see tripsBreaker); a domain answer (not found, invalid,
 * conflict, permission) proves the service is up. opossum's own timeout is off: the gRPC deadline of
 * each call is the one time limit, so the breaker never cuts a call shorter than its caller asked.
 */
import { status as GrpcStatus, type ServiceError } from '@grpc/grpc-js';
import CircuitBreaker from 'opossum';
import type { Logger } from '../logger.js';
import { AppError } from '../errors.js';
import { answeredByService } from './status.js';

export type BreakerState = 'closed' | 'open' | 'half_open';

export interface BreakerOptions {
  /** How long the breaker stays open before it lets one trial call through. */
  resetTimeoutMs: number;
  /** Failure percentage (of the calls in the rolling window) above which the breaker opens. */
  errorThresholdPercentage: number;
  /** Calls the rolling window must hold before the breaker may open at all. */
  volumeThreshold: number;
  /** Length of the rolling window the failure percentage is computed over. */
  rollingCountTimeoutMs: number;
}

export const DEFAULT_BREAKER_OPTIONS: BreakerOptions = {
  resetTimeoutMs: 5_000,
  errorThresholdPercentage: 50,
  volumeThreshold: 5,
  rollingCountTimeoutMs: 10_000,
};

export type BreakerStateListener = (state: BreakerState, previous: BreakerState) => void;

export interface ServiceBreaker {
  readonly state: BreakerState;
  /** Runs `call` under the breaker: refused with 503 while open, its outcome recorded otherwise. */
  run<T>(call: () => Promise<T>): Promise<T>;
  /**
   * A server stream under the breaker. The stream counts once, when it opens: its first message or
   * its clean end is a success, a failure before the first message is a failure. `start` runs only
   * when the breaker lets the call through, at the first `next()`.
   */
  stream<T>(start: () => AsyncGenerator<T>): AsyncGenerator<T>;
  /** Calls `listener` on every state change; returns the unsubscribe function. */
  onStateChange(listener: BreakerStateListener): () => void;
  /** Stops the breaker's timers; later calls are refused. */
  shutdown(): void;
}

/**
 * Whether a failed call says the service is in trouble (and so counts towards opening the breaker).
 * Transport failures, deadlines and crashes count: every call that reached no handler, and every
 * `internal` answer (a handler crashed, or its database is down). A service that deliberately
 * answers `unavailable` or `timeout` is up and is reporting its own dependency: that dependency's
 * breaker, inside the service, handles it, so breakers do not open in cascade up the call chain.
 * A call its caller cancelled does not count either.
 */
export function tripsBreaker(error: unknown): boolean {
  if (!(error instanceof AppError)) return true;
  // The caller cancelled the call itself (its client left, or it refused an upload midway): that
  // says nothing about the service, and counting it would let one client open the breaker for all.
  if ((error.cause as Partial<ServiceError> | undefined)?.code === GrpcStatus.CANCELLED) return false;
  if (error.kind === 'internal') return true;
  if (error.kind !== 'unavailable' && error.kind !== 'timeout') return false;
  return !answeredByService(error);
}

/** The 503 every caller gets while the breaker of `serviceName` refuses calls. */
export function serviceUnavailable(serviceName: string, cause?: unknown): AppError {
  return AppError.unavailable(`The ${serviceName} service is unavailable`, cause);
}

/** A breaker that never opens, for clients created with `breaker: false`. */
export const NO_BREAKER: ServiceBreaker = {
  state: 'closed',
  run: (call) => call(),
  stream: (start) => start(),
  onStateChange: () => () => undefined,
  shutdown: () => undefined,
};

type Call = () => Promise<unknown>;

/** Creates the breaker of the client of service `serviceName`. */
export function createServiceBreaker(
  serviceName: string,
  options: Partial<BreakerOptions> = {},
  logger?: Logger,
): ServiceBreaker {
  const settings = { ...DEFAULT_BREAKER_OPTIONS, ...options };
  const breaker = new CircuitBreaker<[Call], unknown>((call) => call(), {
    name: serviceName,
    timeout: false,
    resetTimeout: settings.resetTimeoutMs,
    errorThresholdPercentage: settings.errorThresholdPercentage,
    volumeThreshold: settings.volumeThreshold,
    rollingCountTimeout: settings.rollingCountTimeoutMs,
    rollingCountBuckets: 10,
    // Nothing reads opossum's periodic snapshots; state changes are what callers watch.
    enableSnapshots: false,
    errorFilter: (error: unknown) => !tripsBreaker(error),
  });

  const listeners = new Set<BreakerStateListener>();
  let state: BreakerState = 'closed';
  const enter = (next: BreakerState) => {
    const previous = state;
    if (previous === next) return;
    state = next;
    const fields = { peer_service: serviceName, previous };
    if (next === 'open') {
      logger?.warn(
        { ...fields, reset_timeout_ms: settings.resetTimeoutMs },
        `circuit breaker of the ${serviceName} service opened: calls fail fast`,
      );
    } else if (next === 'closed') {
      logger?.info(fields, `circuit breaker of the ${serviceName} service closed: calls go through again`);
    } else {
      logger?.info(fields, `circuit breaker of the ${serviceName} service half open: trying one call`);
    }
    for (const listener of listeners) listener(next, previous);
  };
  breaker.on('open', () => enter('open'));
  breaker.on('halfOpen', () => enter('half_open'));
  breaker.on('close', () => enter('closed'));

  const run = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return (await breaker.fire(call)) as T;
    } catch (error) {
      // opossum's own refusals (open, half open with its trial in flight, shut down) become the 503.
      if (error instanceof Error && CircuitBreaker.isOurError(error)) throw serviceUnavailable(serviceName);
      throw error;
    }
  };

  return {
    get state() {
      return state;
    },
    run,
    async *stream<T>(start: () => AsyncGenerator<T>): AsyncGenerator<T> {
      let messages: AsyncGenerator<T> | undefined;
      try {
        const first = await run(() => {
          messages = start();
          return messages.next();
        });
        if (first.done) return;
        yield first.value;
        yield* messages!;
      } finally {
        // A consumer that stops early cancels the call (a finished generator ignores this).
        await messages?.return(undefined);
      }
    },
    onStateChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    shutdown() {
      listeners.clear();
      breaker.shutdown();
    },
  };
}
