/**
 * Keeps the delivery log for DELIVERY_RETENTION_DAYS: once at start and then every hour, older
 * deliveries, event ids and deleted subscriptions are removed (retention-store.ts). Event ids are
 * kept as long as deliveries, which is far longer than the broker could redeliver a message (it
 * redelivers within the consumer's lifetime, minutes at most), so deduplication never forgets an
 * event that can still arrive twice. Several replicas may run it at once; the deletes are idempotent.
 */
import type pg from 'pg';
import { startSweepJob, type Logger, type PeriodicJob } from '@tix/kit';
import { deleteExpired, type RetentionCounts } from './retention-store.js';

/** Starts the periodic pass; the first one runs shortly after start. */
export function startRetentionJob(options: {
  pool: pg.Pool;
  retentionDays: number;
  logger: Logger;
  intervalMs?: number;
}): PeriodicJob<RetentionCounts> {
  return startSweepJob({
    name: 'retention pass',
    intervalMs: options.intervalMs,
    logger: options.logger,
    sweep: () => deleteExpired(options.pool, options.retentionDays),
    deleted: (counts) => counts.deliveries + counts.events + counts.webhooks,
    message: 'retention: deleted expired webhook data',
  });
}
