/**
 * What the gateway learns about a request on its way through the middleware, attached to the
 * express Request: the correlation id and logger, the host role, the caller and the project.
 */
import type { IdempotencyContext, Logger, OutgoingContext } from '@tix/kit';
import { AppError } from '@tix/kit';
import type { lookup, Principal } from '@tix/protos';
import type { SessionData } from '../sessions/session-store.js';

/** The two faces of the gateway: the API host (/v1, API keys) and the app host (/api, sessions). */
export type HostRole = 'api' | 'app';

/** The project a request operates in, as the project-context middleware resolved it. */
export type ProjectContext = lookup.Project__Output;

/** A loaded browser session: its id (the cookie value) and its stored data. */
export interface LoadedSession {
  id: string;
  data: SessionData;
}

declare global {
  // Express exposes its Request type for augmentation only through this global namespace.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** Set first by the correlation-id middleware, so always present in handlers. */
      correlationId: string;
      /** Child logger carrying the correlation id. */
      log: Logger;
      hostRole?: HostRole;
      principal?: Principal;
      project?: ProjectContext;
      /** undefined until the session middleware ran; null when the caller has no valid session. */
      session?: LoadedSession | null;
      /** Set by the idempotency middleware once it claimed the request's Idempotency-Key. */
      idempotency?: IdempotencyContext;
    }
  }
}

/**
 * The context of every service call made for this request: correlation id, caller, and the claimed
 * Idempotency-Key (services that record it, like CreateTicket, answer a retry whose gateway record
 * was lost; the others ignore it).
 */
export function callContext(request: Express.Request): OutgoingContext {
  const context: OutgoingContext = {
    correlationId: request.correlationId,
    principal: request.principal ?? null,
  };
  if (request.idempotency) context.idempotency = request.idempotency;
  return context;
}

/** The authenticated caller; a route mounted without authentication is a wiring bug (500). */
export function requirePrincipal(request: Express.Request): Principal {
  if (!request.principal) throw AppError.internal('route reached without an authenticated principal');
  return request.principal;
}
