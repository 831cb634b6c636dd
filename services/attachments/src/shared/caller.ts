/**
 * Who is calling: reads and writes are made on behalf of the principal the gateway authenticated;
 * every write is attributed to its user (created_by, deleted_by).
 */
import { AppError, type CallContext } from '@tix/kit';

/** The part of a call that is passed on to the ticket service and used for attribution. */
export type Caller = Pick<CallContext, 'correlationId' | 'principal'>;

/** The acting user of a write; 401 when the call carries no principal (a write must be attributable). */
export function requireAuthorId(caller: Caller): number {
  if (!caller.principal) throw AppError.unauthenticated('Authentication required');
  return caller.principal.user_id;
}
