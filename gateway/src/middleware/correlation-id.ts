/**
 * Every request gets a correlation id before anything else runs: the caller's X-Correlation-ID when
 * it is well-formed (kit isCorrelationId), otherwise a fresh UUID. It is echoed on every response,
 * carried by the request's child logger, and passed to every service call (callContext). One info
 * line per request is logged when the response finishes. While it runs, the request is recorded as
 * in flight, so a crash's fatal log line names it (kit crash.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Express, RequestHandler } from 'express';
import { isCorrelationId, trackInFlight, type Logger } from '@tix/kit';
import { requestPath } from '../http/routing.js';

export const CORRELATION_ID_RESPONSE_HEADER = 'X-Correlation-ID';

/** The caller's correlation id if acceptable, else a new UUID. */
export function chooseCorrelationId(header: string | string[] | undefined): string {
  return typeof header === 'string' && isCorrelationId(header) ? header : randomUUID();
}

/**
 * Makes `request.log` a child logger carrying the correlation id, created on first use (most
 * requests never log on their own, and a child logger per request is a measurable cost).
 */
export function installRequestLogger(app: Express, logger: Logger): void {
  const loggers = new WeakMap<object, Logger>();
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    get(this: Express.Request) {
      let child = loggers.get(this);
      if (!child) {
        child = logger.child({ correlation_id: this.correlationId });
        loggers.set(this, child);
      }
      return child;
    },
  });
}

/** Assigns the correlation id, sets the response header, logs one line per request (at info). */
export function correlationId(logger: Logger): RequestHandler {
  const logRequests = logger.isLevelEnabled('info');
  return (request, response, next) => {
    const id = chooseCorrelationId(request.headers['x-correlation-id']);
    request.correlationId = id;
    response.setHeader(CORRELATION_ID_RESPONSE_HEADER, id);
    const describe = () => `${request.method} ${request.path.slice(0, 200)}`;
    response.once('close', trackInFlight({ correlationId: id, what: describe }));
    if (!logRequests) return next();
    const startedAt = process.hrtime.bigint();
    response.once('finish', () => {
      request.log.info(
        {
          method: request.method,
          path: requestPath(request),
          status: response.statusCode,
          duration_ms: Number(process.hrtime.bigint() - startedAt) / 1e6,
          user_id: request.principal?.user_id,
        },
        'request',
      );
    });
    next();
  };
}
