/**
 * Typed clients for Tix services. Every unary RPC becomes `method(request, context) => Promise`, with
 * a deadline, the correlation id and the principal in metadata, and errors converted back into the
 * AppError the service raised. Streaming RPCs are reached through `raw` with `callMetadata`/`callOptions`.
 * Unary and server-streaming calls go through the client's circuit breaker (grpc/breaker.ts).
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { serviceConstructors, type ServiceConstructors, type ServiceName } from '@tix/protos';
import type { Logger } from '../logger.js';
import {
  createServiceBreaker,
  NO_BREAKER,
  type BreakerOptions,
  type BreakerState,
  type BreakerStateListener,
} from './breaker.js';
import { outgoingMetadata, type OutgoingContext } from './metadata.js';
import { fromGrpcError } from './status.js';
import { recordBreakerState, recordGrpcClientCall, secondsSince } from '../metrics.js';

type RawClient<N extends ServiceName> = InstanceType<ServiceConstructors[N]>;
/** The RPC names of a service (the definition's keys without grpc's string index signature). */
type MethodName<N extends ServiceName> = Extract<
  keyof { [K in keyof ServiceConstructors[N]['service'] as string extends K ? never : K]: true },
  string
>;

/**
 * The request a unary method takes and the response it resolves to, read off the generated client.
 * Inference sees an overloaded method's last signature, which for unary methods is (argument, callback).
 */
type UnaryMethod<F> = F extends (
  argument: infer Req,
  callback: grpc.requestCallback<infer Res>,
) => grpc.ClientUnaryCall
  ? (request: Req, context?: OutgoingContext) => Promise<Res>
  : never;

type ClientMember<N extends ServiceName, K> = K extends keyof RawClient<N> ? RawClient<N>[K] : never;

type UnaryMethods<N extends ServiceName> = {
  [K in MethodName<N> as UnaryMethod<ClientMember<N, K>> extends never ? never : K]: UnaryMethod<
    ClientMember<N, K>
  >;
};

/** The request a server-streaming method takes and the messages it yields (last overload: (argument, options)). */
type ServerStreamMethod<F> = F extends (
  argument: infer Req,
  options?: grpc.CallOptions,
) => grpc.ClientReadableStream<infer Res>
  ? (request: Req, context?: OutgoingContext) => AsyncIterable<Res>
  : never;

type ServerStreamMethods<N extends ServiceName> = {
  [
    K in MethodName<N> as ServerStreamMethod<ClientMember<N, K>> extends never ? never : K
  ]: ServerStreamMethod<ClientMember<N, K>>;
};

export type ServiceClient<N extends ServiceName> = UnaryMethods<N> &
  ServerStreamMethods<N> & {
    readonly name: N;
    readonly address: string;
    /** The underlying grpc-js client, for client-streaming RPCs. */
    readonly raw: RawClient<N>;
    /** Metadata for a raw call (correlation id, principal). */
    callMetadata(context?: OutgoingContext): grpc.Metadata;
    /** Call options for a raw call (deadline). */
    callOptions(context?: OutgoingContext): grpc.CallOptions;
    /** Asks the service's grpc.health.v1 whether it is SERVING (never through the breaker). */
    checkHealth(timeoutMs?: number): Promise<boolean>;
    /** State of the client's circuit breaker ('closed' when it was turned off). */
    breakerState(): BreakerState;
    /** Calls `listener` on every breaker state change (e.g. for a gauge); returns the unsubscribe. */
    onBreakerStateChange(listener: BreakerStateListener): () => void;
    /** Runs a raw call (e.g. a client stream) under the client's breaker. */
    withBreaker<T>(call: () => Promise<T>): Promise<T>;
    close(): void;
  };

export interface ServiceClientOptions {
  /** Default deadline of a call, in milliseconds. */
  deadlineMs: number;
  /** Circuit breaker settings over DEFAULT_BREAKER_OPTIONS; `false` turns the breaker off. */
  breaker?: Partial<BreakerOptions> | false;
  /** Where breaker state changes are logged (warn on open, info otherwise); silent when absent. */
  logger?: Logger;
}

const CHANNEL_OPTIONS: grpc.ChannelOptions = {
  // Channelz bookkeeping costs on every call and nothing here reads it; metrics come from our own
  // counters. Calls are not retried by the channel: callers decide (reads are safe, writes are not).
  'grpc.enable_channelz': 0,
  'grpc.enable_retries': 0,
  'grpc.keepalive_time_ms': 30_000,
  'grpc.keepalive_timeout_ms': 10_000,
  'grpc.max_receive_message_length': 4 * 1024 * 1024,
  // Fail fast while a service is down instead of queueing calls until their deadline.
  'grpc.initial_reconnect_backoff_ms': 200,
  'grpc.max_reconnect_backoff_ms': 2_000,
};

/** Creates a typed client of service `name` at `address` ("host:port"). */
export function createServiceClient<N extends ServiceName>(
  name: N,
  address: string,
  options: ServiceClientOptions,
): ServiceClient<N> {
  const Constructor = serviceConstructors()[name] as unknown as new (
    address: string,
    credentials: grpc.ChannelCredentials,
    options: grpc.ChannelOptions,
  ) => RawClient<N>;
  const raw = new Constructor(address, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
  const health = new (healthClientConstructor())(address, grpc.credentials.createInsecure(), CHANNEL_OPTIONS);
  const callOptions = (context?: OutgoingContext): grpc.CallOptions => ({
    deadline: Date.now() + (context?.deadlineMs ?? options.deadlineMs),
  });
  const callMetadata = (context?: OutgoingContext) => outgoingMetadata(context ?? {});
  const breaker =
    options.breaker === false ? NO_BREAKER : createServiceBreaker(name, options.breaker, options.logger);
  // tix_circuit_breaker_state follows every transition of this client's breaker.
  if (options.breaker !== false) {
    recordBreakerState(name, breaker.state);
    breaker.onStateChange((state) => recordBreakerState(name, state));
  }

  const client: Record<string, unknown> = {
    name,
    address,
    raw,
    callMetadata,
    callOptions,
    checkHealth: (timeoutMs = 1_000) =>
      new Promise<boolean>((resolve) => {
        health.Check(
          { service: '' },
          new grpc.Metadata(),
          { deadline: Date.now() + timeoutMs },
          (error, response) => resolve(!error && response?.status === 'SERVING'),
        );
      }),
    breakerState: () => breaker.state,
    onBreakerStateChange: (listener: BreakerStateListener) => breaker.onStateChange(listener),
    withBreaker: <T>(call: () => Promise<T>) => breaker.run(call),
    close: () => {
      breaker.shutdown();
      raw.close();
      health.close();
    },
  };
  const definition = serviceConstructors()[name].service as grpc.ServiceDefinition;
  for (const [method, methodDefinition] of Object.entries(definition)) {
    if (methodDefinition.requestStream) continue;
    if (methodDefinition.responseStream) {
      const open = (raw as unknown as Record<string, UntypedServerStream>)[method]!.bind(raw);
      client[method] = (request: unknown, context?: OutgoingContext) =>
        breaker.stream(() => readServerStream(open(request, callMetadata(context), callOptions(context))));
      continue;
    }
    const call = (raw as unknown as Record<string, grpc.MethodDefinition<unknown, unknown> & UntypedUnary>)[
      method
    ]!.bind(raw);
    client[method] = (request: unknown, context?: OutgoingContext) =>
      breaker.run(
        () =>
          new Promise((resolve, reject) => {
            const startedAt = process.hrtime.bigint();
            call(
              request,
              callMetadata(context),
              callOptions(context),
              (error: grpc.ServiceError | null, response: unknown) => {
                recordGrpcClientCall(
                  name,
                  method,
                  error ? error.code : grpc.status.OK,
                  secondsSince(startedAt),
                );
                if (error) reject(fromGrpcError(error));
                else resolve(response);
              },
            );
          }),
      );
  }
  return client as ServiceClient<N>;
}

type UntypedServerStream = (
  request: unknown,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
) => grpc.ClientReadableStream<unknown>;

/**
 * The messages of a server-streaming call as an async iterable. A failed call throws the AppError the
 * service raised; a consumer that stops early cancels the call.
 */
export async function* readServerStream<T>(call: grpc.ClientReadableStream<T>): AsyncGenerator<T> {
  let finished = false;
  try {
    for await (const message of call) yield message as T;
    finished = true;
  } catch (error) {
    finished = true;
    const serviceError = error as Partial<grpc.ServiceError>;
    throw typeof serviceError.code === 'number' ? fromGrpcError(error as grpc.ServiceError) : error;
  } finally {
    if (!finished) {
      // grpc-js reports our own cancellation as a CANCELLED 'error' event after this generator
      // has stopped listening: that event must find a listener, or it would crash the process.
      call.on('error', () => undefined);
      call.cancel();
    }
  }
}

type UntypedUnary = (
  request: unknown,
  metadata: grpc.Metadata,
  options: grpc.CallOptions,
  callback: (error: grpc.ServiceError | null, response: unknown) => void,
) => grpc.ClientUnaryCall;

interface HealthClient extends grpc.Client {
  Check(
    request: { service: string },
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: (error: grpc.ServiceError | null, response?: { status: string }) => void,
  ): grpc.ClientUnaryCall;
}
type HealthClientConstructor = new (
  address: string,
  credentials: grpc.ChannelCredentials,
  options: grpc.ChannelOptions,
) => HealthClient;

let healthConstructor: HealthClientConstructor | undefined;
function healthClientConstructor(): HealthClientConstructor {
  if (!healthConstructor) {
    const definition = protoLoader.loadSync(healthProtoPath, {
      keepCase: true,
      enums: String,
      defaults: true,
    });
    const loaded = grpc.loadPackageDefinition(definition) as unknown as {
      grpc: { health: { v1: { Health: HealthClientConstructor } } };
    };
    healthConstructor = loaded.grpc.health.v1.Health;
  }
  return healthConstructor;
}
