/** Ticket types as lookup.v1 messages. */
import type { lookup } from '@tix/protos';
import type { TicketTypeRecord } from './ticket-type-store.js';

/** The TicketType message of a record; the schema travels as JSON text, retired_at only when retired. */
export function toTicketTypeMessage(type: TicketTypeRecord): lookup.TicketType__Output {
  return {
    id: type.id,
    project_id: type.projectId,
    name: type.name,
    slug: type.slug,
    description: type.description,
    is_default: type.isDefault,
    field_schema_json: JSON.stringify(type.fieldSchema ?? []),
    ...(type.retiredAt === null ? {} : { retired_at: type.retiredAt.toISOString() }),
  };
}
