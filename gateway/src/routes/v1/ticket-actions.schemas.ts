/**
 * The request schemas of the ticket actions: PATCH /tickets/{id}/status, POST /tickets/bulk-update and
 * the additive POST /tickets/{id}/merge (the path id is tickets.schemas.ts ticketIdParams; restore has
 * no body).
 */
import { z } from 'zod';
import { BULK_STATUSES, RESOLUTION_TYPES, TICKET_LIMITS } from '@tix/protos';
import { enumField, idField, slugField } from '../../http/schema-fields.js';
import { BODY_NOT_OBJECT_MESSAGE } from '../../resources/messages.js';
import { assigneeField, priorityField, tagsField } from './tickets.schemas.js';

// ---- PATCH /tickets/{id}/status ------------------------------------------------------------------

export const moveTicketBody = z.object(
  {
    status: slugField('Status', {
      description: 'The target status (a status slug of the project).',
      example: 'closed',
    }),
    after_id: idField('After ID', {
      description: 'Place the ticket directly after this ticket of the target lane.',
      example: 12,
    })
      .nullable()
      .optional(),
    before_id: idField('Before ID', {
      description: 'Place the ticket directly before this ticket of the target lane.',
      example: 13,
    })
      .nullable()
      .optional(),
    resolution_type: enumField('Resolution type', RESOLUTION_TYPES, {
      description: 'resolved, wont_fix or duplicate; only when the target status is closed.',
      example: 'resolved',
    })
      .nullable()
      .optional(),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

// ---- POST /tickets/bulk-update -------------------------------------------------------------------

const NOTHING_TO_BULK_UPDATE = 'Give at least one field to change: status, priority, assigned_to or tags';

export const bulkUpdateBody = z
  .object(
    {
      ticket_ids: z
        .array(idField('Ticket ID', { description: 'A ticket id.', example: 42 }), {
          error: (issue) =>
            issue.input === undefined ? 'Ticket IDs are required' : 'Ticket IDs must be an array of integers',
        })
        .min(1, 'Give at least 1 ticket ID')
        .max(TICKET_LIMITS.bulkIds, `Give at most ${TICKET_LIMITS.bulkIds} ticket IDs`)
        .overwrite((ids) => [...new Set(ids)])
        .meta({
          description: `1 to ${TICKET_LIMITS.bulkIds} ticket ids of the project; duplicates collapse.`,
          example: [42, 43],
        }),
      status: enumField('Status', BULK_STATUSES, {
        description: 'One of the default statuses: open, work_in_progress, waiting, closed.',
        example: 'closed',
      }).optional(),
      priority: priorityField.optional(),
      assigned_to: assigneeField.nullable().optional(),
      tags: tagsField
        .meta({
          description: 'Replaces the tags of every listed ticket; an empty list or null clears them.',
          example: ['vip'],
        })
        .nullable()
        .optional(),
    },
    { error: BODY_NOT_OBJECT_MESSAGE },
  )
  .refine(
    (body) =>
      body.status !== undefined ||
      body.priority !== undefined ||
      (body.assigned_to !== undefined && body.assigned_to !== null) ||
      // tags: null clears them (the spec lists "array of string or null"), so it is a change.
      body.tags !== undefined,
    { message: NOTHING_TO_BULK_UPDATE },
  );

// ---- POST /tickets/{id}/merge --------------------------------------------------------------------

export const mergeTicketBody = z.object(
  {
    target_id: idField('Target ID', {
      description: 'The ticket (same project) this one duplicates.',
      example: 41,
    }),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

export type MoveTicketBody = z.output<typeof moveTicketBody>;
export type BulkUpdateBody = z.output<typeof bulkUpdateBody>;
export type MergeTicketBody = z.output<typeof mergeTicketBody>;
