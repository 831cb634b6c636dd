/**
 * The domain events of attachments, written to the outbox in the same transaction as the change:
 * attachment.created when an upload is recorded, attachment.deleted when one is deleted. `data` is
 * the attachment as the API returns it (for a deletion: as it was), `project_id` its ticket's
 * project, `source` 'attachments'. Envelope v1.1: the call's `actor`, and `changes` `{}` (an
 * attachment is never edited, only added and removed).
 */
import { newDomainEvent } from '@tix/kit';
import type { DomainEvent, EventActor } from '@tix/protos';
import type { AttachmentJson } from '@tix/protos';
import { toAttachmentJson, type AttachmentRow } from './attachment-row.js';

export const EVENT_SOURCE = 'attachments';

/** attachment.created for a freshly recorded row, stamped with its creation time. */
export function attachmentCreated(row: AttachmentRow, actor: EventActor): DomainEvent<AttachmentJson> {
  return newDomainEvent('attachment.created', toAttachmentJson(row), {
    source: EVENT_SOURCE,
    projectId: row.projectId,
    occurredAt: row.createdAt,
    actor,
    changes: {},
  });
}

/** attachment.deleted for a row just marked deleted, stamped with its deletion time. */
export function attachmentDeleted(row: AttachmentRow, actor: EventActor): DomainEvent<AttachmentJson> {
  return newDomainEvent('attachment.deleted', toAttachmentJson(row), {
    source: EVENT_SOURCE,
    projectId: row.projectId,
    occurredAt: row.deletedAt ?? new Date(),
    actor,
    changes: {},
  });
}
