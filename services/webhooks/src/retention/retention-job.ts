/**
 * Keeps the delivery log for DELIVERY_RETENTION_DAYS: once at start and then every hour, older
 * deliveries, event ids and deleted subscriptions are removed (retention-store.ts). Event ids are
 * kept as long as deliveries, which is far longer than the broker could redeliver a message (it
 * redelivers within the consumer's lifetime, minutes at most), so deduplication never forgets an
 * event that can still arrive twice. Several replicas may run it at once; the deletes are idempotent.
 */
import type pg from 'pg';
import { startPeriodicJob, type Logger, type PeriodicJob } from '@tix/kit';
import { deleteExpired, type RetentionCounts } from './retention-store.js';

/** Starts the periodic pass; the first one runs shortly after start. */
export function startRetentionJob(options: {
  pool: pg.Pool;
  retentionDays: number;
  logger: Logger;
  intervalMs?: number;
}): PeriodicJob<RetentionCounts> {
  return startPeriodicJob({
    name: 'retention pass',
    intervalMs: options.intervalMs ?? 3_600_000,
    firstRunAfterMs: 5_000,
    logger: options.logger,
    run: async () => {
      const counts = await deleteExpired(options.pool, options.retentionDays);
      if (counts.deliveries + counts.events + counts.webhooks > 0) {
        options.logger.info(counts, 'retention: deleted expired webhook data');
      }
      return counts;
    },
  });
}
