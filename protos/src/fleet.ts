/**
 * The fleet map: every service, its default gRPC port and database name, and how the environment
 * names its address and database. The gateway, the services and the launcher all read it here.
 */
import type { ServiceName } from './loader-options.js';

export const FLEET: Record<ServiceName, { defaultPort: number; database: string }> = {
  lookup: { defaultPort: 50051, database: 'tix_lookup' },
  tickets: { defaultPort: 50052, database: 'tix_tickets' },
  comments: { defaultPort: 50053, database: 'tix_comments' },
  attachments: { defaultPort: 50054, database: 'tix_attachments' },
  webhooks: { defaultPort: 50055, database: 'tix_webhooks' },
  activity: { defaultPort: 50057, database: 'tix_activity' },
  ai: { defaultPort: 50056, database: 'tix_ai' },
};

export const SERVICE_NAMES = Object.keys(FLEET) as ServiceName[];

/** The gateway's default HTTP ports: the API host (/v1) and the session host (/api, the console). */
export const GATEWAY_DEFAULT_PORTS = { api: 8080, app: 8081 } as const;

/** Env variable holding a service's address for its callers, e.g. TICKETS_SERVICE_ADDR=tickets:50052. */
export function serviceAddressVariable(name: ServiceName): string {
  return `${name.toUpperCase()}_SERVICE_ADDR`;
}

/** Env variable that overrides a service's database URL, e.g. TICKETS_DATABASE_URL. */
export function serviceDatabaseVariable(name: ServiceName): string {
  return `${name.toUpperCase()}_DATABASE_URL`;
}

/** The value of <NAME>_SERVICE_ADDR that says "this service is not deployed" (development only). */
export const SERVICE_NOT_DEPLOYED = 'none';
