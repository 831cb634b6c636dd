/** gRPC handler of SeedDemo: translate the outcome, nothing else. */
import { toCreatedApiKeyMessage } from '../api-keys/api-key-mapper.js';
import { toProjectMessage } from '../projects/project-mapper.js';
import { requireAdminCaller } from '../shared/admin-caller.js';
import type { LookupHandlers } from '../shared/handler-types.js';
import { toTicketTypeMessage } from '../ticket-types/ticket-type-mapper.js';
import { toUserMessage } from '../users/user-mapper.js';
import type { DemoSeeder } from './seed-demo.js';

/** SeedDemo over the demo seeder. */
export function demoHandlers(seeder: DemoSeeder): Pick<LookupHandlers, 'SeedDemo'> {
  return {
    async SeedDemo(request, context) {
      requireAdminCaller(context);
      const outcome = await seeder.seedDemo({
        withTickets: request.with_tickets,
        correlationId: context.correlationId,
      });
      return {
        projects: outcome.projects.map(toProjectMessage),
        ticket_types: outcome.ticketTypes.map(toTicketTypeMessage),
        users: outcome.users.map(toUserMessage),
        created_keys: outcome.createdKeys.map(({ key, value }) => toCreatedApiKeyMessage(key, value)),
        created_passwords: outcome.createdPasswords,
        created_tickets: outcome.createdTickets,
        created_comments: outcome.createdComments,
      };
    },
  };
}
