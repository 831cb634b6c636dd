/**
 * Spec Ticket, plus the additive `tags`, `resolution_type`, `requester_id`, `cc` and `closed_at`, as the API sends it: declared once
 * here. The ticket service writes it (ticket-mapper.ts, tested against this schema), `TicketJson` is
 * its output type, and the gateway's OpenAPI document names it `Ticket` (with examples). The object
 * is open, as every resource is: the spec lets new optional fields appear in v1.
 */
import { z } from 'zod';
import { RESOLUTION_TYPES, TICKET_LIMITS, TICKET_PRIORITIES } from '../vocabulary.js';
import { idField as id, timestampField as timestamp } from './fields.js';

export const ticketSchema = z
  .object({
    id: id('Ticket id.'),
    project_id: id('Project id.'),
    ticket_type_id: id('A ticket type of the project.'),
    project_ref_id: z.number().int().meta({ description: 'Per-project sequence number.' }),
    ticket_number: z.string().meta({ description: '`<PREFIX>-<n>`.' }),
    title: z.string().meta({ description: `1 to ${TICKET_LIMITS.title} characters.` }),
    description: z
      .string()
      .nullable()
      .meta({ description: `Markdown, at most ${TICKET_LIMITS.description} characters.` }),
    status: z.string().meta({ description: 'A status slug of the project; tolerate unknown values.' }),
    status_label: z.string(),
    priority: z.string().meta({
      description: `${TICKET_PRIORITIES.join(', ')}; tolerate unknown values.`,
    }),
    priority_label: z.string(),
    assigned_to: z.number().int().nullable().meta({ description: 'User id, or null.' }),
    created_by: id('User id of the creator.'),
    updated_by: z.number().int().nullable().meta({ description: 'User id of the last writer, or null.' }),
    custom_fields: z
      .record(z.string(), z.unknown())
      .meta({ description: "Values keyed by the ticket type's field_schema names." }),
    source_type: z
      .string()
      .meta({ description: 'Values seen: web, api, system, email (additive); tolerate unknown values.' }),
    merged_into_id: z.number().int().nullable(),
    version: z.number().int().meta({ description: 'Starts at 1, +1 on each successful update.' }),
    created_at: timestamp('Creation time'),
    updated_at: timestamp('Last change'),
    tags: z.array(z.string()).meta({ description: 'Labels (additive).' }),
    resolution_type: z
      .enum(RESOLUTION_TYPES)
      .nullable()
      .meta({ description: 'Set when the ticket was moved to a closed status (additive).' }),
    requester_id: z
      .number()
      .int()
      .nullable()
      .meta({ description: 'Customer id of the person who asked, or null (additive).' }),
    cc: z
      .array(z.number().int())
      .meta({ description: 'Customer ids copied on the ticket (additive); never the requester.' }),
    closed_at: z.string().nullable().meta({
      description:
        'When the ticket moved into a closed status (ISO 8601), kept while it moves between closed statuses, null while its status is open (additive).',
      format: 'date-time',
    }),
    merged_into: z
      .number()
      .int()
      .optional()
      .meta({ description: 'Present only when the ticket was merged; the target ticket id.' }),
  })
  .meta({ description: 'A ticket (spec Ticket).' });

/** A ticket as the API sends it (the output of ticketSchema). */
export type TicketJson = z.output<typeof ticketSchema>;
