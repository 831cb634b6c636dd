/**
 * The lookup service: stores -> use cases -> handlers for projects, ticket types, users, API keys and
 * the demo data, relaying its outbox (api_key.revoked, user.updated). main.ts runs it; tests start the same
 * composition (testing.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineTixService, grpcService } from '@tix/kit';
import { createApiKeyAuthenticator } from './api-keys/api-key-authentication.js';
import { apiKeyHandlers } from './api-keys/api-key-handlers.js';
import { createApiKeyService } from './api-keys/api-key-service.js';
import { createApiKeyStore } from './api-keys/api-key-store.js';
import { loadConfig } from './config.js';
import { demoHandlers } from './demo/demo-handlers.js';
import { createDemoSeeder } from './demo/seed-demo.js';
import { projectHandlers } from './projects/project-handlers.js';
import { createProjectService } from './projects/project-service.js';
import { createProjectStore } from './projects/project-store.js';
import { ticketTypeHandlers } from './ticket-types/ticket-type-handlers.js';
import { createTicketTypeService } from './ticket-types/ticket-type-service.js';
import { createTicketTypeStore } from './ticket-types/ticket-type-store.js';
import { passwordResetHandlers } from './users/password-reset-handlers.js';
import { createPasswordResetService } from './users/password-reset-service.js';
import { createPasswordResetStore } from './users/password-reset-store.js';
import { userHandlers } from './users/user-handlers.js';
import { createUserService } from './users/user-service.js';
import { createUserStore } from './users/user-store.js';

/** The lookup service's Prisma migrations (for createTestDatabase and the launcher). */
export const LOOKUP_MIGRATIONS_DIR = path.resolve(
  path.dirname(fileURLToPath(import.meta.url)),
  '../prisma/migrations',
);

/** The lookup service, on `options.now` as its clock when given (tests move it to check last-use bookkeeping). */
export function lookupService(options: { now?: () => Date } = {}) {
  return defineTixService({
    name: 'lookup',
    config: loadConfig,
    migrations: LOOKUP_MIGRATIONS_DIR,
    peers: ['tickets', 'comments'],
    outbox: true,
    register: ({ pool, logger, peers }) => {
      const now = options.now ?? (() => new Date());
      const projects = createProjectService(createProjectStore(pool), {
        countTickets: (projectId, status, context) =>
          peers.tickets.CountTicketsInStatus({ project_id: projectId, status }, context),
        now,
      });
      const ticketTypes = createTicketTypeService(createTicketTypeStore(pool), projects, {
        countInvalid: (projectId, ticketTypeId, fieldSchemaJson, context) =>
          peers.tickets.CountInvalidFieldValues(
            { project_id: projectId, ticket_type_id: ticketTypeId, field_schema_json: fieldSchemaJson },
            context,
          ),
        now,
      });
      const users = createUserService(createUserStore(pool), { now });
      const resets = createPasswordResetService(createPasswordResetStore(pool), createUserStore(pool), {
        now,
      });
      const apiKeyStore = createApiKeyStore(pool);
      const apiKeys = createApiKeyService({ store: apiKeyStore, users, projects, now });
      const authenticator = createApiKeyAuthenticator({ store: apiKeyStore, logger, now });
      const seeder = createDemoSeeder({ projects, ticketTypes, users, apiKeys, peers });
      return {
        grpc: grpcService('lookup', {
          ...projectHandlers(projects),
          ...ticketTypeHandlers(ticketTypes),
          ...userHandlers(users),
          ...apiKeyHandlers(apiKeys, authenticator),
          ...demoHandlers(seeder),
          ...passwordResetHandlers(resets),
        }),
      };
    },
  });
}
