/**
 * Keeps the delivery log for DELIVERY_RETENTION_DAYS: once at start and then every hour, older
 * deliveries, event ids and deleted subscriptions are removed (retention-store.ts). Event ids are
 * kept as long as deliveries, which is far longer than the broker could redeliver a message (it
 * redelivers within the consumer's lifetime, minutes at most), so deduplication never forgets an
 * event that can still arrive twice. Several replicas may run it at once; the deletes are idempotent.
 */
import type pg from 'pg';
import type { Logger } from '@tix/kit';
import { deleteExpired, type RetentionCounts } from './retention-store.js';

export interface RetentionJob {
  /** One pass now (tests, operators). */
  runOnce(): Promise<RetentionCounts>;
  stop(): Promise<void>;
}

/** Starts the periodic pass; the first one runs shortly after start. */
export function startRetentionJob(options: {
  pool: pg.Pool;
  retentionDays: number;
  logger: Logger;
  intervalMs?: number;
}): RetentionJob {
  const intervalMs = options.intervalMs ?? 3_600_000;
  let running: Promise<RetentionCounts> | undefined;
  const runOnce = () => {
    running ??= deleteExpired(options.pool, options.retentionDays)
      .then((counts) => {
        if (counts.deliveries + counts.events + counts.webhooks > 0) {
          options.logger.info(counts, 'retention: deleted expired webhook data');
        }
        return counts;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const tick = () => {
    runOnce().catch((error: unknown) => options.logger.warn({ err: error }, 'retention pass failed'));
  };
  const first = setTimeout(tick, 5_000);
  const timer = setInterval(tick, intervalMs);
  first.unref();
  timer.unref();
  return {
    runOnce,
    async stop() {
      clearTimeout(first);
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
