/** gRPC handlers of the ticket-type RPCs: translate messages, nothing else. */
import { AppError } from '@tix/kit';
import type { ProjectSelector } from '../projects/project-service.js';
import { requireAdminCaller } from '../shared/admin-caller.js';
import type { LookupHandlers } from '../shared/handler-types.js';
import { toTicketTypeMessage } from './ticket-type-mapper.js';
import type { TicketTypeService } from './ticket-type-service.js';

/** ListTicketTypes, GetTicketType, CreateTicketType and UpdateTicketType over the ticket-type service. */
export function ticketTypeHandlers(
  ticketTypes: TicketTypeService,
): Pick<LookupHandlers, 'ListTicketTypes' | 'GetTicketType' | 'CreateTicketType' | 'UpdateTicketType'> {
  return {
    async ListTicketTypes(request) {
      const list = await ticketTypes.listTicketTypes(request.project_id);
      return { ticket_types: list.map(toTicketTypeMessage) };
    },

    async GetTicketType(request) {
      return toTicketTypeMessage(await ticketTypes.getTicketType(request.project_id, request.id));
    },

    async CreateTicketType(request, context) {
      requireAdminCaller(context);
      let project: ProjectSelector;
      if (request.project === 'project_id' && request.project_id !== undefined)
        project = { id: request.project_id };
      else if (request.project === 'project_slug' && request.project_slug !== undefined)
        project = { slug: request.project_slug };
      else throw AppError.validation({ project: ['Project id or slug is required'] });
      const type = await ticketTypes.createTicketType(
        {
          project,
          name: request.name,
          slug: request.slug,
          description: request.description,
          isDefault: request.is_default,
          fieldSchemaJson: request.field_schema_json,
        },
        { principal: context.principal, correlationId: context.correlationId },
      );
      return toTicketTypeMessage(type);
    },

    async UpdateTicketType(request, context) {
      requireAdminCaller(context);
      const type = await ticketTypes.updateTicketType(
        request.project_id,
        request.id,
        {
          ...(request.name === undefined ? {} : { name: request.name }),
          ...(request.description === undefined ? {} : { description: request.description }),
          ...(request.is_default === undefined ? {} : { isDefault: request.is_default }),
          ...(request.field_schema_json === undefined ? {} : { fieldSchemaJson: request.field_schema_json }),
          ...(request.is_retired === undefined ? {} : { isRetired: request.is_retired }),
        },
        { principal: context.principal, correlationId: context.correlationId },
      );
      return toTicketTypeMessage(type);
    },
  };
}
