/**
 * Who may call the admin RPCs (create, revoke, seed). Calls without a principal come from operator
 * tooling inside the network (the CLI, the launcher), which the network policy restricts; a call that
 * does carry a principal (relayed by the gateway) must be an admin's.
 */
import { AppError, type CallContext } from '@tix/kit';

/** Throws 403 unless the call has no principal or an admin principal. */
export function requireAdminCaller(context: Pick<CallContext, 'principal'>): void {
  if (context.principal && context.principal.role !== 'admin') {
    throw AppError.permissionDenied('This operation requires the admin role');
  }
}
