/**
 * Typed gRPC clients of the fleet's services (kit createServiceClient), addressed from
 * <NAME>_SERVICE_ADDR. A service configured as `none` (development only) has no client: routes that
 * need it answer 503, and /readyz reports it `not_deployed`.
 */
import {
  AppError,
  createServiceClient,
  type BreakerOptions,
  type Logger,
  type ServiceClient,
} from '@tix/kit';
import { SERVICE_NAMES, type ServiceName } from '@tix/protos';

export type ServiceClients = { [N in ServiceName]: ServiceClient<N> | null };

export interface ServiceClientsOptions {
  /** Circuit breaker of every client (kit defaults when absent); `false` turns them off. */
  breaker?: Partial<BreakerOptions> | false;
  /** Where breaker state changes are logged. */
  logger?: Logger;
}

/** One client per deployed service, each with the default call deadline and its own breaker. */
export function createServiceClients(
  addresses: Record<ServiceName, string | null>,
  deadlineMs: number,
  options: ServiceClientsOptions = {},
): ServiceClients {
  const client = <N extends ServiceName>(name: N): ServiceClient<N> | null => {
    const address = addresses[name];
    return address === null ? null : createServiceClient(name, address, { deadlineMs, ...options });
  };
  return {
    lookup: client('lookup'),
    tickets: client('tickets'),
    comments: client('comments'),
    attachments: client('attachments'),
    webhooks: client('webhooks'),
    activity: client('activity'),
    ai: client('ai'),
    mail: client('mail'),
    customers: client('customers'),
    sla: client('sla'),
  };
}

/** The client of `name`, or 503 when that service is not deployed. */
export function requireService<N extends ServiceName>(clients: ServiceClients, name: N): ServiceClient<N> {
  const client = clients[name];
  if (!client) throw AppError.unavailable(`The ${name} service is not deployed`);
  return client;
}

/** Every service's client, each answering 503 on use when that service is not deployed (requireService). */
export type RequiredServices = { readonly [N in ServiceName]: ServiceClient<N> };

/** The clients as handlers use them: `services.tickets` is the client, or 503 when not deployed. */
export function requiredServices(clients: ServiceClients): RequiredServices {
  const services = {} as Record<ServiceName, unknown>;
  for (const name of SERVICE_NAMES) {
    Object.defineProperty(services, name, { enumerable: true, get: () => requireService(clients, name) });
  }
  return services as RequiredServices;
}

/** Closes every client's channels. */
export function closeServiceClients(clients: ServiceClients): void {
  for (const name of SERVICE_NAMES) clients[name]?.close();
}

/**
 * An int64 of a service's answer (grpc hands it over as decimal text) as a number: ids and log
 * positions stay far below 2^53, so anything else is the service's fault (500).
 */
export function int64Number(text: string, service: ServiceName): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value))
    throw AppError.internal(`the ${service} service sent ${text} as an integer`);
  return value;
}
