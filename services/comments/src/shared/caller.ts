/**
 * Who is calling: the principal the gateway established (author of new comments, subject of the
 * edit and delete permissions) and the correlation id, both passed on to the ticket service.
 */
import { AppError } from '@tix/kit';
import type { Principal } from '@tix/protos';

/** What the use cases need of a call (the kit's CallContext has both). */
export interface Caller {
  correlationId: string;
  principal: Principal | null;
}

/** The caller's principal; 401 when the call carries none (a write must be attributable). */
export function requirePrincipal(caller: Caller): Principal {
  if (!caller.principal) throw AppError.unauthenticated('Authentication required');
  return caller.principal;
}
