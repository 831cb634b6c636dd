/** gRPC handler of CountInvalidFieldValues: translates the message, nothing else. */
import type { TicketHandlers } from '../ticket-handlers.js';
import { countInvalidFieldValues } from './count-invalid-field-values.js';
import type { FieldValuesStore } from './field-values-store.js';

/** CountInvalidFieldValues over the ticket store. */
export function fieldAuditHandlers(store: FieldValuesStore): Pick<TicketHandlers, 'CountInvalidFieldValues'> {
  return {
    async CountInvalidFieldValues(request, context) {
      return countInvalidFieldValues(
        store,
        {
          projectId: request.project_id,
          ticketTypeId: request.ticket_type_id,
          fieldSchemaJson: request.field_schema_json,
        },
        context.signal,
      );
    },
  };
}
