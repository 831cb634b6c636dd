/**
 * Async handlers for grpc-js. Services implement each RPC as an async function of (request, context)
 * and the kit adapts it: exactly one reply per call, thrown errors become statuses (never a hang),
 * unexpected errors are logged with the correlation id and answered as INTERNAL. A stream whose
 * caller went away is stopped at once and counted as CANCELLED, whatever the handler threw then.
 */
import { randomUUID } from 'node:crypto';
import { status as GrpcStatus } from '@grpc/grpc-js';
import type * as grpc from '@grpc/grpc-js';
import type { Principal } from '@tix/protos';
import { trackInFlight } from '../crash.js';
import { AppError, ERROR_KINDS } from '../errors.js';
import type { Logger } from '../logger.js';
import { recordGrpcServerCall, secondsSince } from '../metrics.js';
import { readCorrelationId, readIdempotency, readPrincipal, type IdempotencyContext } from './metadata.js';
import { errorKindOf, toGrpcStatus } from './status.js';

/** What a handler knows about the call besides the request. */
export interface CallContext {
  method: string;
  correlationId: string;
  /** The caller as the gateway established it; null for calls without one (admin tools, probes). */
  principal: Principal | null;
  /** The Idempotency-Key the gateway claimed for this call's request; null when none (or malformed). */
  idempotency: IdempotencyContext | null;
  /** Child logger carrying method and correlation id. */
  logger: Logger;
  /**
   * Aborted when the caller cancels or its deadline passes. A streaming handler waiting on a source
   * (an S3 body, a slow query) must stop waiting then: the kit can only stop asking it for more.
   */
  signal: AbortSignal;
}

type UnaryHandler<Req, Res> = (request: Req, context: CallContext) => Promise<Res>;
type ClientStreamHandler<Req, Res> = (requests: AsyncIterable<Req>, context: CallContext) => Promise<Res>;
type ServerStreamHandler<Req, Res> = (request: Req, context: CallContext) => AsyncIterable<Res>;

/** The async handler shape of one generated grpc-js handler type. */
export type AsyncHandler<F> =
  F extends grpc.handleClientStreamingCall<infer Req, infer Res>
    ? ClientStreamHandler<Req, Res>
    : F extends grpc.handleUnaryCall<infer Req, infer Res>
      ? UnaryHandler<Req, Res>
      : F extends grpc.handleServerStreamingCall<infer Req, infer Res>
        ? ServerStreamHandler<Req, Res>
        : never;

/** Async handlers for every method of a generated `...ServiceHandlers` interface. */
export type AsyncHandlers<H> = { [K in keyof H as string extends K ? never : K]: AsyncHandler<H[K]> };

/** The part of every kind of server call that the context reads. */
interface AnyCall {
  metadata: grpc.Metadata;
  on(event: 'cancelled', listener: () => void): unknown;
}

/**
 * The context of one call. The child logger and the abort signal are made on first use: most unary
 * calls never need them, and on the hot path their cost is measurable. Streams watch for
 * cancellation from the start (`watchCancellation`), since their caller may leave at any moment.
 */
function callContext(
  method: string,
  call: AnyCall,
  logger: Logger,
  options: { watchCancellation?: boolean } = {},
): CallContext {
  const correlationId = readCorrelationId(call.metadata) ?? randomUUID();
  const principal = readPrincipal(call.metadata);
  const idempotency = readIdempotency(call.metadata);
  let childLogger: Logger | undefined;
  let controller: AbortController | undefined;
  const watch = (): AbortController => {
    if (!controller) {
      const created = new AbortController();
      call.on('cancelled', () => created.abort(AppError.unavailable('Call cancelled by the caller')));
      controller = created;
    }
    return controller;
  };
  if (options.watchCancellation) watch();
  return {
    method,
    correlationId,
    principal,
    idempotency,
    get logger() {
      childLogger ??= logger.child({ method, correlation_id: correlationId, user_id: principal?.user_id });
      return childLogger;
    },
    get signal() {
      return watch().signal;
    },
  };
}

/** Records the call as in flight (named in a crash's fatal line, crash.ts); returns its end. */
function trackCall(context: CallContext): () => void {
  return trackInFlight({ correlationId: context.correlationId, what: context.method });
}

/** The status code a finished call answers with (what toGrpcStatus would send). */
function outcomeCode(error: unknown): number {
  if (error === undefined) return GrpcStatus.OK;
  return ERROR_KINDS[errorKindOf(error)].grpc;
}

/** Counts the call (tix_grpc_server_*) and logs it: failures always, the rest at debug. */
function logOutcome(context: CallContext, base: Logger, startedAt: bigint, error?: unknown): void {
  recordGrpcServerCall(context.method, outcomeCode(error), secondsSince(startedAt));
  const expected = error === undefined || (error instanceof AppError && error.kind !== 'internal');
  if (expected && !base.isLevelEnabled('debug')) return;
  const duration_ms = Number(process.hrtime.bigint() - startedAt) / 1e6;
  if (error === undefined) {
    context.logger.debug({ duration_ms }, 'rpc ok');
  } else if (expected) {
    context.logger.debug({ duration_ms, error_kind: error.kind, message: error.message }, 'rpc refused');
  } else {
    context.logger.error({ duration_ms, err: error }, 'rpc failed');
  }
}

/**
 * Counts and logs (debug) a call whose caller went away: it cancelled, or its deadline passed. An
 * error the handler threw on its way out (a source destroyed on abort, a request stream closed
 * under it) is a consequence of that, not a failure of the service: no `rpc failed`, no INTERNAL.
 */
function logCancelled(context: CallContext, base: Logger, startedAt: bigint, error?: unknown): void {
  recordGrpcServerCall(context.method, GrpcStatus.CANCELLED, secondsSince(startedAt));
  if (!base.isLevelEnabled('debug')) return;
  const duration_ms = Number(process.hrtime.bigint() - startedAt) / 1e6;
  context.logger.debug({ duration_ms, ...(error === undefined ? {} : { err: error }) }, 'rpc cancelled');
}

/**
 * The handler's promise; a handler that throws before it returns one (not declared `async`) gives a
 * rejected promise, so its AppError reaches the caller as its status, not as grpc-js's INTERNAL.
 */
function started<T>(run: () => Promise<T>): Promise<T> {
  // A throw inside the executor rejects the promise.
  return new Promise<T>((resolve) => resolve(run()));
}

/** Adapts an async unary handler to grpc-js. */
export function adaptUnary<Req, Res>(
  method: string,
  run: UnaryHandler<Req, Res>,
  logger: Logger,
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const startedAt = process.hrtime.bigint();
    const context = callContext(method, call, logger);
    const done = trackCall(context);
    started(() => run(call.request, context)).then(
      (response) => {
        done();
        logOutcome(context, logger, startedAt);
        callback(null, response);
      },
      (error: unknown) => {
        done();
        logOutcome(context, logger, startedAt, error);
        callback(toGrpcStatus(error));
      },
    );
  };
}

/** Adapts an async client-streaming handler to grpc-js; the handler consumes the stream as an async iterable. */
export function adaptClientStream<Req, Res>(
  method: string,
  run: ClientStreamHandler<Req, Res>,
  logger: Logger,
): grpc.handleClientStreamingCall<Req, Res> {
  return (call, callback) => {
    const startedAt = process.hrtime.bigint();
    // A stream's caller may go away at any moment: listen for that from the start.
    const context = callContext(method, call, logger, { watchCancellation: true });
    const done = trackCall(context);
    started(() => run(call as AsyncIterable<Req>, context)).then(
      (response) => {
        done();
        logOutcome(context, logger, startedAt);
        callback(null, response);
      },
      (error: unknown) => {
        done();
        if (context.signal.aborted) logCancelled(context, logger, startedAt, error);
        else logOutcome(context, logger, startedAt, error);
        // Drops what the handler left unread; the status below goes out all the same.
        call.destroy();
        callback(toGrpcStatus(error));
      },
    );
  };
}

/** Resolves when `call` can take more writes, or the caller went away (listeners cleaned up both ways). */
function drainedOrAborted(
  call: grpc.ServerWritableStream<unknown, unknown>,
  signal: AbortSignal,
): Promise<void> {
  return new Promise((resolve) => {
    // An aborted signal never fires 'abort' again, and a cancelled call never drains.
    if (signal.aborted) {
      resolve();
      return;
    }
    const onDrain = () => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    const onAbort = () => {
      call.off('drain', onDrain);
      resolve();
    };
    call.once('drain', onDrain);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** Adapts an async-iterable server-streaming handler to grpc-js, respecting backpressure. */
export function adaptServerStream<Req, Res>(
  method: string,
  run: ServerStreamHandler<Req, Res>,
  logger: Logger,
): grpc.handleServerStreamingCall<Req, Res> {
  return (call) => {
    const startedAt = process.hrtime.bigint();
    const context = callContext(method, call, logger, { watchCancellation: true });
    const signal = context.signal;
    const done = trackCall(context);
    void (async () => {
      try {
        // Leaving this loop early (break, or a throw) returns the handler's iterator, so its
        // finally blocks run and release what it holds (an S3 body, a database cursor).
        for await (const message of run(call.request, context)) {
          if (signal.aborted) break;
          if (!call.write(message)) await drainedOrAborted(call, signal);
          // Gone while we waited: asking for another message would be a read for nobody.
          if (signal.aborted) break;
        }
        if (signal.aborted) {
          logCancelled(context, logger, startedAt);
          return;
        }
        logOutcome(context, logger, startedAt);
        call.end();
      } catch (error) {
        if (signal.aborted) {
          logCancelled(context, logger, startedAt, error);
          return;
        }
        logOutcome(context, logger, startedAt, error);
        call.emit('error', toGrpcStatus(error));
      } finally {
        done();
      }
    })();
  };
}
