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

export interface SweepJobOptions<Result> {
  /** Names the job in its logs, e.g. "retention sweep". */
  name: string;
  logger: Logger;
  /** Time between passes (default: an hour). */
  intervalMs?: number;
  /** One pass: deletes what has expired and answers what it deleted. */
  sweep: () => Promise<Result>;
  /** How many rows the pass deleted: a pass that deleted none logs nothing. */
  deleted: (result: Result) => number;
  /** The log line of a pass that deleted rows, with `fields(result)` (default: the result itself). */
  message: string;
  fields?: (result: Result) => object;
}

/**
 * A retention sweep: a periodic job whose first pass runs 5 s after start and then every hour,
 * logging at info what each pass deleted, if anything. The delete must be idempotent (replicas).
 */
export function startSweepJob<Result>(options: SweepJobOptions<Result>): PeriodicJob<Result> {
  return startPeriodicJob({
    name: options.name,
    intervalMs: options.intervalMs ?? 3_600_000,
    firstRunAfterMs: 5_000,
    logger: options.logger,
    run: async () => {
      const result = await options.sweep();
      if (options.deleted(result) > 0)
        options.logger.info(options.fields?.(result) ?? (result as object), options.message);
      return result;
    },
  });
}
