/**
 * Finishes deletions whose object removal failed (store down at that moment, or a crash right after
 * the delete committed): every interval it takes the oldest deleted attachments not yet confirmed
 * removed, removes their objects (removing a missing object succeeds, so a retry is harmless, also
 * when two replicas sweep at once) and marks them removed. A failure leaves the row queued for the
 * next round.
 */
import type { Logger } from '@tix/kit';
import type { AttachmentStore } from '../attachments/attachment-store.js';
import type { ObjectStore } from '../storage/object-store.js';

export interface ObjectSweeper {
  /** One round now: resolves with how many objects were removed (for tests and shutdown). */
  sweepOnce(): Promise<number>;
  stop(): Promise<void>;
}

export interface ObjectSweeperOptions {
  attachments: Pick<AttachmentStore, 'pendingRemovals' | 'markObjectRemoved'>;
  objects: Pick<ObjectStore, 'remove'>;
  logger: Logger;
  intervalMs: number;
  batchSize?: number;
}

/** Starts sweeping every `intervalMs` until stop(). */
export function startObjectSweeper(options: ObjectSweeperOptions): ObjectSweeper {
  const batchSize = options.batchSize ?? 100;
  let running: Promise<number> | undefined;

  const sweep = async (): Promise<number> => {
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
  };

  const sweepOnce = () => {
    running ??= sweep().finally(() => {
      running = undefined;
    });
    return running;
  };

  const timer = setInterval(() => {
    sweepOnce().catch((error: unknown) => options.logger.warn({ err: error }, 'sweeper: round failed'));
  }, options.intervalMs);
  timer.unref();

  return {
    sweepOnce,
    async stop() {
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
