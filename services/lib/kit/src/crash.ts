/**
 * An uncaught exception (or unhandled rejection) leaves the process in an unknown state: it is logged
 * once at fatal level, with the correlation ids of the requests and calls in flight at that moment,
 * and the process exits with EX_SOFTWARE so that its supervisor (the local launcher, Kubernetes)
 * restarts it and counts the restart. Nothing is swallowed.
 *
 * In-flight work is tracked rather than read from an AsyncLocalStorage: the events that crash a
 * process (a parser's 'error' on a socket's data) run in the socket's context, not the request's, so
 * only the set of requests under way can name the culprit. A Set insert and delete per request is
 * all it costs.
 */
import type { Logger } from './logger.js';

/** The sysexits code for an internal software error. */
export const EX_SOFTWARE = 70;

/** One request or call under way. */
export interface InFlightWork {
  correlationId: string;
  /**
   * `POST /v1/tickets/1/attachments`, `CreateTicket`...; a function when building the text would
   * cost every request something that only a crash reads.
   */
  what: string | (() => string);
}

const inFlight = new Set<InFlightWork>();

/** Records `work` as under way; call the returned function when it is done. */
export function trackInFlight(work: InFlightWork): () => void {
  inFlight.add(work);
  return () => inFlight.delete(work);
}

/** The work under way now (at most `limit` entries, oldest first), described. */
export function workInFlight(limit = 50): { correlationId: string; what: string }[] {
  const found: { correlationId: string; what: string }[] = [];
  for (const { correlationId, what } of inFlight) {
    if (found.length === limit) break;
    found.push({ correlationId, what: typeof what === 'string' ? what : what() });
  }
  return found;
}

let installed = false;

/** Logs the first uncaught exception with the work in flight and exits EX_SOFTWARE (once per process). */
export function exitOnUncaughtException(logger: Logger): void {
  if (installed) return;
  installed = true;
  process.on('uncaughtException', (error, origin) => {
    const work = workInFlight();
    logger.fatal(
      {
        err: error,
        origin,
        correlation_ids: work.map((entry) => entry.correlationId),
        in_flight: work,
        in_flight_count: inFlight.size,
      },
      'uncaught exception: exiting so the process is restarted clean',
    );
    process.exit(EX_SOFTWARE);
  });
}
