/**
 * Spec Ticket type, with its custom fields, plus the additive `retired_at`, as the API sends it:
 * declared once here. protos presentTicketType writes it; the gateway's OpenAPI document names it
 * `TicketType`.
 */
import { z } from 'zod';
import { CUSTOM_FIELD_TYPES } from '../vocabulary.js';
import { idField as id } from './fields.js';

export const fieldSchemaEntrySchema = z
  .object({
    name: z.string().meta({ description: 'Key used in `custom_fields`.' }),
    label: z.string(),
    type: z.enum(CUSTOM_FIELD_TYPES),
    required: z.boolean(),
    constraints: z.record(z.string(), z.unknown()).meta({
      description:
        'By type: text min_length, max_length, pattern; textarea min_length, max_length; number min_value, ' +
        'max_value; select and multi_select allowed_values (required); other types none.',
    }),
    default_value: z.unknown().meta({ description: 'Used when no value is given; null for none.' }),
    order: z.number().int().meta({ description: 'Lower values display first.' }),
  })
  .meta({ id: 'FieldSchemaEntry', description: 'One custom field of a ticket type.' });

export const ticketTypeSchema = z
  .object({
    id: id('Ticket type id.'),
    name: z.string(),
    slug: z.string(),
    description: z.string(),
    is_default: z.boolean(),
    field_schema: z.array(fieldSchemaEntrySchema),
    retired_at: z.string().nullable().meta({
      description:
        'When the type was retired (ISO 8601; additive): it keeps its tickets but takes no new ones. Null while it is in use.',
      format: 'date-time',
    }),
  })
  .meta({ description: 'A ticket type (spec Ticket type).' });

/** A ticket type as the API sends it (the output of ticketTypeSchema). */
export type TicketTypeJson = z.output<typeof ticketTypeSchema>;
