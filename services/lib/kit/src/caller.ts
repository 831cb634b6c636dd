/** Who is calling a service: what its use cases need of a call, and the rule that a write has an author. */
import type { Principal } from '@tix/protos';
import { AppError } from './errors.js';
import type { CallContext } from './grpc/handlers.js';

/** The part of a call a use case needs: who (principal) and the correlation id to pass on to peers. */
export type Caller = Pick<CallContext, 'correlationId' | 'principal'>;

/** The call's principal; 401 when the call carries none (a write must be attributable). */
export function requirePrincipal(principal: Principal | null): Principal {
  if (!principal) throw AppError.unauthenticated('Authentication required');
  return principal;
}
