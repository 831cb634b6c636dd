/**
 * Work a service repeats on a timer (sweeps, retention): one pass at a time, a failed pass logged and
 * tried again next round, timers that never keep the process alive, and a stop that waits for the
 * pass under way. Replicas may run the same job at once, so a pass must be idempotent.
 */
import type { Logger } from './logger.js';

export interface PeriodicJob<Result> {
  /** One pass now, or the pass already under way (tests, operators, shutdown). */
  runOnce(): Promise<Result>;
  /** No more passes; resolves once the one under way has finished. */
  stop(): Promise<void>;
}

export interface PeriodicJobOptions<Result> {
  /** Names the job in its failure log, e.g. "idempotency sweep". */
  name: string;
  /** Time between passes. */
  intervalMs: number;
  /** When the first pass runs (default: after one interval). */
  firstRunAfterMs?: number;
  logger: Logger;
  /** One pass; logs what it did itself. */
  run: () => Promise<Result>;
}

/** Starts running `run` every `intervalMs` until stop(). */
export function startPeriodicJob<Result>(options: PeriodicJobOptions<Result>): PeriodicJob<Result> {
  let running: Promise<Result> | undefined;
  const runOnce = () => {
    running ??= options.run().finally(() => {
      running = undefined;
    });
    return running;
  };
  const tick = () => {
    runOnce().catch((error: unknown) =>
      options.logger.warn({ err: error, job: options.name }, `${options.name} failed; retrying next round`),
    );
  };
  const first =
    options.firstRunAfterMs === undefined ? undefined : setTimeout(tick, options.firstRunAfterMs).unref();
  const timer = setInterval(tick, options.intervalMs).unref();
  return {
    runOnce,
    async stop() {
      clearTimeout(first);
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
