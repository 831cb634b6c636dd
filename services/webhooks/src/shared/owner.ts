/** Who owns a subscription: the calling principal's user. Every API call here needs one. */
import { AppError } from '@tix/kit';
import type { Principal } from '@tix/protos';

/** The calling user's id; 401 when the call carries no principal. */
export function requireOwner(principal: Principal | null): number {
  if (!principal) throw AppError.unauthenticated('Authentication required');
  return principal.user_id;
}
