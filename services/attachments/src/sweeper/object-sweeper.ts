/**
 * Finishes deletions whose object removal failed (store down at that moment, or a crash right after
 * the delete committed): every interval it takes the oldest deleted attachments not yet confirmed
 * removed, removes their objects (removing a missing object succeeds, so a retry is harmless, also
 * when two replicas sweep at once) and marks them removed. A failure leaves the row queued for the
 * next round.
 */
import { startPeriodicJob, type Logger, type PeriodicJob } from '@tix/kit';
import type { AttachmentStore } from '../attachments/attachment-store.js';
import type { ObjectStore } from '@tix/kit';

export interface ObjectSweeperOptions {
  attachments: Pick<AttachmentStore, 'pendingRemovals' | 'markObjectRemoved'>;
  objects: Pick<ObjectStore, 'remove'>;
  logger: Logger;
  intervalMs: number;
  batchSize?: number;
}

/** Starts sweeping every `intervalMs` until stop(); a round resolves with how many objects it removed. */
export function startObjectSweeper(options: ObjectSweeperOptions): PeriodicJob<number> {
  const batchSize = options.batchSize ?? 100;
  return startPeriodicJob({
    name: 'object sweeper',
    intervalMs: options.intervalMs,
    logger: options.logger,
    run: async () => {
      let removed = 0;
      for (const pending of await options.attachments.pendingRemovals(batchSize)) {
        try {
          await options.objects.remove(pending.objectKey);
          await options.attachments.markObjectRemoved(pending.id);
          removed += 1;
        } catch (error) {
          options.logger.warn(
            { err: error, attachment_id: pending.id, object_key: pending.objectKey },
            'sweeper: object removal failed; retrying next round',
          );
          // The store is most likely down: the rest of the batch would fail the same way.
          break;
        }
      }
      if (removed > 0) options.logger.info({ removed }, 'sweeper: removed objects of deleted attachments');
      return removed;
    },
  });
}
