/**
 * The delivery workers: take due deliveries from the database (so a restart, or another replica,
 * resumes whatever was pending), run their attempts under bounded concurrency (host-limiter.ts)
 * with the spec's retry policy (retry-policy.ts), and record every attempt.
 *
 * - Work arrives by wake() (this process's consumer just queued deliveries), by NOTIFY on
 *   `webhook_deliveries` (any replica queued some), and by a slow poll (retries that another
 *   replica gave up, leases that ran out).
 * - Retries happen in this process after the 50-200 ms delay, holding the delivery; the lease is
 *   renewed while held, so no other replica takes it, and runs out if this process dies.
 * - Right before every attempt the subscription must still be live; a deleted one gets no further
 *   attempt, including a retry already scheduled.
 * - Claims take a few deliveries of each subscription in turn (delivery-queue-store.ts), and a
 *   subscription whose host has a backlog waiting for its slots gets no more for now (its deliveries
 *   stay in the database, due), so a dead receiver never fills this process with work.
 * - stop(): no more claims; deliveries waiting for a slot are given back at once; attempts in flight
 *   may finish within the grace period (then they are cut off, not recorded, and given back); every
 *   delivery still held is given back due when its retry delay ends.
 */
import { setMaxListeners } from 'node:events';
import type { Logger } from '@tix/kit';
import type { AttemptResult, DeliveryQueueStore } from './delivery-queue-store.js';
import { createBatcher, createCoalescer } from '../shared/batcher.js';
import { listenForDeliveries } from './delivery-notifications.js';
import { toJob, type Job } from './delivery-job.js';
import { recordDeliveryOutcome } from './delivery-metrics.js';
import { createHostLimiter, LimiterClosed } from './host-limiter.js';
import { performAttempt, type AttemptDeps, type AttemptOutcome } from './perform-attempt.js';
import { hasRetryAfter, retryDelayMs } from './retry-policy.js';

export interface DeliveryWorkerOptions {
  queue: DeliveryQueueStore;
  attempts: AttemptDeps;
  logger: Logger;
  /** Attempts in flight at once, over every target. */
  concurrency: number;
  /** Attempts in flight at once to one host:port. */
  hostConcurrency: number;
  /** How long a claim holds a delivery without renewal (renewed every third of it). */
  leaseMs: number;
  /** Fallback poll for due deliveries (ms). */
  pollIntervalMs?: number;
  /** When given, LISTEN for queued deliveries on this database (other replicas' fan-outs). */
  listenUrl?: string;
  /** Delay before the retry after failed attempt n (default: the spec's policy). */
  retryDelay?: (attempt: number) => number;
}

export interface DeliveryWorkers {
  /** Looks for due deliveries now. */
  wake(): void;
  /** Deliveries held (running, queued for a slot, or waiting for their retry). */
  held(): number;
  /** Stops as described in the header; resolves when every held delivery is recorded or given back. */
  stop(graceMs: number): Promise<void>;
}

const CLAIM_BATCH = 64;
const MIN_CLAIM_INTERVAL_MS = 5;
const MAX_ERROR_BACKOFF_MS = 5_000;

/** Starts the workers; they run until stop(). */
export function startDeliveryWorkers(options: DeliveryWorkerOptions): DeliveryWorkers {
  const { queue, logger } = options;
  const retryDelay = options.retryDelay ?? ((attempt: number) => retryDelayMs(attempt));
  const pollIntervalMs = options.pollIntervalMs ?? 1_000;
  const isLive = createBatcher(async (ids: number[]) => {
    const live = await queue.liveWebhooks(ids);
    return new Map(ids.map((id) => [id, live.has(id)]));
  }, false);
  const recordAttempt = createCoalescer(
    (results: AttemptResult[]) => queue.recordAttempts(results),
    (result) => result.id,
  );
  const abort = new AbortController();
  // Every attempt in flight listens on this one signal (stop cuts them all): up to the concurrency
  // limit at once, which is no leak, so Node's warning past 10 listeners does not apply.
  setMaxListeners(0, abort.signal);
  /** Every delivery this process holds, by id. */
  const holding = new Map<string, Job>();
  /** Retry delays in progress: cancelling one ends its wait early (stop). */
  const sleepers = new Set<() => void>();
  let stopping = false;
  let wanted = true;
  let lastClaimFull = false;
  /** When a claim last found less than it could take (nothing more was due then). */
  let lastPartialClaimAt = -Infinity;
  let signal: (() => void) | undefined;

  const wake = () => {
    wanted = true;
    signal?.();
  };

  const limiter = createHostLimiter({ overall: options.concurrency, perHost: options.hostConcurrency });
  /** Deliveries held at most (running, waiting for a slot, or between attempts). */
  const maxHeld = options.concurrency * 2;
  /** Attempts waiting for one host's slots before it counts as saturated. */
  const hostBacklog = options.hostConcurrency * 2;
  /** runJob promises in progress (stop() waits for them). */
  const active = new Set<Promise<void>>();
  /** Saturated hosts whose due deliveries were left in the database; claim again once they drain. */
  const deferredHosts = new Set<string>();

  const start = (job: Job) => {
    const run = runJob(job).finally(() => {
      active.delete(run);
      if (lastClaimFull) wake();
      else if (deferredHosts.has(job.host) && limiter.waiting(job.host) < options.hostConcurrency) {
        deferredHosts.delete(job.host);
        wake();
      }
    });
    active.add(run);
  };

  /** Waits `ms` unless stop() comes first; true when the full wait passed. */
  const pause = (ms: number) =>
    new Promise<boolean>((resolve) => {
      if (stopping) return resolve(false);
      const cancel = () => {
        clearTimeout(timer);
        sleepers.delete(cancel);
        resolve(false);
      };
      const timer = setTimeout(() => {
        sleepers.delete(cancel);
        resolve(true);
      }, ms);
      sleepers.add(cancel);
    });

  /** One attempt under a slot of its host, right after checking the subscription is still live. */
  async function attemptOnce(job: Job, number: number): Promise<AttemptOutcome | 'gone'> {
    const release = await limiter.acquire(job.host);
    try {
      if (!(await isLive(job.webhookId))) return 'gone';
      return await performAttempt(options.attempts, job, number, abort.signal);
    } finally {
      release();
    }
  }

  async function runJob(job: Job): Promise<void> {
    try {
      while (!stopping) {
        const number = job.next;
        const outcome = await attemptOnce(job, number);
        if (outcome === 'gone') {
          recordDeliveryOutcome('abandoned');
          await queue.abandon(job.id);
          holding.delete(job.id);
          return;
        }
        if (outcome.aborted) {
          recordDeliveryOutcome('interrupted');
          return; // given back by stop()
        }
        const final = outcome.ok || !hasRetryAfter(number);
        recordDeliveryOutcome(
          outcome.ok ? 'success' : final ? 'failed' : 'failed_attempt',
          outcome.record.duration_ms,
        );
        const delay = final ? 0 : retryDelay(number);
        const recorded = await recordAttempt({
          id: job.id,
          attempt: outcome.record,
          status: final ? (outcome.ok ? 'delivered' : 'failed') : 'pending',
          holdMs: delay + options.leaseMs,
        });
        if (!outcome.ok) {
          logger.debug(
            { delivery_id: job.id, attempt: number, error: outcome.record.error, final },
            'webhook attempt failed',
          );
        }
        if (!recorded || final) {
          holding.delete(job.id);
          return;
        }
        job.next = number + 1;
        job.notBefore = Date.now() + delay;
        if (!(await pause(delay))) return; // given back by stop()
      }
    } catch (error) {
      if (error instanceof LimiterClosed) return; // stopping: given back by stop()
      // The database failed us: the delivery stays as recorded and is due again when its lease ends.
      holding.delete(job.id);
      logger.warn({ err: error, delivery_id: job.id }, 'webhook delivery interrupted; it will be resumed');
    }
  }

  async function claimSome(): Promise<void> {
    while (!stopping && wanted) {
      wanted = false;
      const room = maxHeld - holding.size;
      if (room <= 0) return;
      const limit = Math.min(room, CLAIM_BATCH);
      // Subscriptions whose host already has a backlog waiting for slots get nothing more for now.
      const skip = new Set<number>();
      for (const job of holding.values()) {
        if (limiter.waiting(job.host) >= hostBacklog) {
          skip.add(job.webhookId);
          deferredHosts.add(job.host);
        }
      }
      const rows = await queue.claim(limit, options.hostConcurrency * 2, options.leaseMs, [...skip]);
      lastClaimFull = rows.length === limit;
      if (lastClaimFull) wanted = true;
      for (const row of rows) {
        const job = toJob(row);
        holding.set(job.id, job);
        start(job);
      }
      if (!lastClaimFull) lastPartialClaimAt = performance.now();
    }
  }

  const loop = (async () => {
    let backoffMs = 100;
    while (!stopping) {
      try {
        // Wake-ups arrive per fan-out (thousands a second under load); after a claim that found
        // everything due, the next one waits a moment, so they cost one claim per interval.
        const sinceEmpty = performance.now() - lastPartialClaimAt;
        if (sinceEmpty < MIN_CLAIM_INTERVAL_MS) await pause(MIN_CLAIM_INTERVAL_MS - sinceEmpty);
        await claimSome();
        backoffMs = 100;
      } catch (error) {
        logger.warn({ err: error }, 'cannot claim webhook deliveries; retrying');
        await pause(backoffMs);
        backoffMs = Math.min(backoffMs * 2, MAX_ERROR_BACKOFF_MS);
        wanted = true;
        continue;
      }
      if (stopping || wanted) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => {
          wanted = true;
          resolve();
        }, pollIntervalMs);
        signal = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      signal = undefined;
    }
  })();

  const heartbeat = setInterval(
    () => {
      if (holding.size === 0) return;
      queue
        .extendLeases([...holding.keys()], options.leaseMs)
        .catch((error: unknown) => logger.warn({ err: error }, 'cannot renew webhook delivery leases'));
    },
    Math.max(100, Math.floor(options.leaseMs / 3)),
  );
  heartbeat.unref();

  const listener = options.listenUrl ? listenForDeliveries(options.listenUrl, wake, logger) : undefined;

  return {
    wake,
    held: () => holding.size,
    async stop(graceMs) {
      if (stopping) return;
      stopping = true;
      signal?.();
      await loop;
      clearInterval(heartbeat);
      await listener?.close();
      const giveBack = (jobs: Job[]) =>
        queue
          .release(
            jobs.map((job) => ({ id: job.id, notBefore: new Date(Math.max(Date.now(), job.notBefore)) })),
          )
          .catch((error: unknown) =>
            logger.warn({ err: error }, 'cannot give webhook deliveries back; their leases will run out'),
          );
      limiter.close(); // deliveries waiting for a slot stop waiting
      for (const cancel of [...sleepers]) cancel();
      let timer: NodeJS.Timeout | undefined;
      const graceOver = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
      await Promise.race([limiter.idle(), graceOver]);
      clearTimeout(timer);
      abort.abort();
      await Promise.all([...active]);
      await giveBack([...holding.values()]);
      holding.clear();
      options.attempts.sender.close();
    },
  };
}
