/**
 * Deleting an attachment, in this order:
 * 1. one transaction marks the row deleted and writes attachment.deleted: from its commit on, the
 *    attachment is 404 everywhere and the event is certain;
 * 2. the object is removed from the store, and the row marked object_removed_at.
 * If step 2 fails (store down, crash), the row stays in the sweeper's queue (deleted, object not
 * confirmed removed) and sweeper/object-sweeper.ts retries the removal until it succeeds. The
 * reverse order could leave a live row whose bytes are gone (a broken download) when the
 * transaction fails after the removal; this order can only leave bytes nobody can reach, for a
 * while, and the sweeper removes them.
 */
import { actorOf, requirePrincipal, type CallContext } from '@tix/kit';
import type { AttachmentDeps } from './attachment-deps.js';
import { ATTACHMENT_DELETED_MESSAGE, attachmentNotFound } from './attachment-errors.js';
import { attachmentDeleted } from './attachment-events.js';
import { findVisibleAttachment, type AttachmentAddress } from './read-attachments.js';

/** Deletes the visible attachment (404 otherwise); the object goes now or by the sweeper. */
export async function deleteAttachment(
  deps: AttachmentDeps,
  address: AttachmentAddress,
  call: Pick<CallContext, 'correlationId' | 'principal' | 'logger'>,
): Promise<{ message: string }> {
  const authorId = requirePrincipal(call.principal).user_id;
  const visible = await findVisibleAttachment(deps, address, call);
  const deleted = await deps.attachments.markDeleted(visible.projectId, visible.id, authorId, (row) => [
    attachmentDeleted(row, actorOf(call.principal)),
  ]);
  if (!deleted) throw attachmentNotFound();
  try {
    await deps.objects.remove(deleted.objectKey);
    await deps.attachments.markObjectRemoved(deleted.id);
  } catch (error) {
    call.logger.warn(
      { err: error, attachment_id: deleted.id, object_key: deleted.objectKey },
      'object removal failed after the delete; the sweeper will retry it',
    );
  }
  return { message: ATTACHMENT_DELETED_MESSAGE };
}
