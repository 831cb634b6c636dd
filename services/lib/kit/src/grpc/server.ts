/**
 * Starting and stopping a service's gRPC server: registers the service's async handlers (adapted by
 * handlers.ts), grpc.health.v1, and shuts down gracefully (NOT_SERVING, drain in-flight calls, then
 * force).
 */
import * as grpc from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import { serviceDefinition, type ServiceHandlersMap, type ServiceName } from '@tix/protos';
import type { Logger } from '../logger.js';
import { adaptClientStream, adaptServerStream, adaptUnary, type AsyncHandlers } from './handlers.js';

export interface GrpcServiceRegistration {
  name: ServiceName;
  definition: grpc.ServiceDefinition;
  handlers: Record<string, unknown>;
}

/** Pairs a service's contract with its async handlers; the type demands one handler per RPC. */
export function grpcService<N extends ServiceName>(
  name: N,
  handlers: AsyncHandlers<ServiceHandlersMap[N]>,
): GrpcServiceRegistration {
  return { name, definition: serviceDefinition(name), handlers: handlers };
}

export interface RunningGrpcServer {
  /** The bound port (useful when started on port 0). */
  port: number;
  health: HealthImplementation;
  /** Stops taking calls, lets in-flight calls finish for up to `graceMs`, then cancels the rest. */
  shutdown(graceMs?: number): Promise<void>;
}

export interface StartGrpcServerOptions {
  host: string;
  port: number;
  services: GrpcServiceRegistration[];
  logger: Logger;
}

/** Largest message accepted; attachments stream in chunks well below it. */
const MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** Binds a gRPC server with the given services and grpc.health.v1 (all SERVING once bound). */
export async function startGrpcServer(options: StartGrpcServerOptions): Promise<RunningGrpcServer> {
  const server = new grpc.Server({
    // Channelz bookkeeping costs on every call and nothing here reads it.
    'grpc.enable_channelz': 0,
    'grpc.max_receive_message_length': MAX_MESSAGE_BYTES,
    'grpc.keepalive_permit_without_calls': 1,
  });
  const serviceNames = options.services.map((service) => fullServiceName(service.definition));
  const health = new HealthImplementation(
    Object.fromEntries(['', ...serviceNames].map((name) => [name, 'NOT_SERVING' as const])),
  );
  health.addToServer(server);

  for (const service of options.services) {
    server.addService(service.definition, adaptHandlers(service, options.logger));
  }

  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(
      `${options.host}:${options.port}`,
      grpc.ServerCredentials.createInsecure(),
      (error, boundPort) => (error ? reject(error) : resolve(boundPort)),
    );
  });
  for (const name of ['', ...serviceNames]) health.setStatus(name, 'SERVING');
  options.logger.info({ port, services: serviceNames }, 'gRPC server listening');

  let stopping: Promise<void> | undefined;
  return {
    port,
    health,
    shutdown(graceMs = 10_000) {
      stopping ??= new Promise<void>((resolve) => {
        for (const name of ['', ...serviceNames]) health.setStatus(name, 'NOT_SERVING');
        const force = setTimeout(() => {
          options.logger.warn({ graceMs }, 'gRPC drain timed out; cancelling remaining calls');
          server.forceShutdown();
          resolve();
        }, graceMs);
        server.tryShutdown(() => {
          clearTimeout(force);
          resolve();
        });
      });
      return stopping;
    },
  };
}

function adaptHandlers(service: GrpcServiceRegistration, logger: Logger): grpc.UntypedServiceImplementation {
  const implementation: grpc.UntypedServiceImplementation = {};
  for (const [method, definition] of Object.entries(service.definition)) {
    const handler = service.handlers[method];
    if (typeof handler !== 'function') throw new Error(`${service.name}: no handler for ${method}`);
    const bound = handler.bind(service.handlers) as never;
    const serviceLogger = logger.child({ rpc_service: service.name });
    if (definition.requestStream && definition.responseStream) {
      throw new Error(`${service.name}.${method}: bidirectional streaming is not supported`);
    } else if (definition.requestStream) {
      implementation[method] = adaptClientStream(method, bound, serviceLogger);
    } else if (definition.responseStream) {
      implementation[method] = adaptServerStream(method, bound, serviceLogger);
    } else {
      implementation[method] = adaptUnary(method, bound, serviceLogger);
    }
  }
  return implementation;
}

/** "tix.ticket.v1.TicketService" from a definition's method paths. */
function fullServiceName(definition: grpc.ServiceDefinition): string {
  const [first] = Object.values(definition);
  if (!first) throw new Error('service definition without methods');
  return first.path.split('/')[1] ?? '';
}
