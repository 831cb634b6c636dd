/** Who is calling a service: what its use cases need of a call, and the rule that a write has an author. */
import type { EventActor, Principal } from '@tix/protos';
import { AppError } from './errors.js';
import type { CallContext } from './grpc/handlers.js';

/** The part of a call a use case needs: who (principal) and the correlation id to pass on to peers. */
export type Caller = Pick<CallContext, 'correlationId' | 'principal'>;

/** The call's principal; 401 when the call carries none (a write must be attributable). */
export function requirePrincipal(principal: Principal | null): Principal {
  if (!principal) throw AppError.unauthenticated('Authentication required');
  return principal;
}

export const OWN_DATA_ONLY_MESSAGE = 'You may only export your own data';

/**
 * 403 unless the call may read everything user `userId` holds across every project (the data
 * export): a call without a principal (operator tooling inside the network, as for the admin RPCs),
 * the user themself or an admin. A principal restricted to one project never may: the export spans
 * them all. 400 for an id that names no user (0: the field was left out).
 */
export function requireOwnDataReader(principal: Principal | null, userId: number): void {
  if (!Number.isInteger(userId) || userId < 1) throw AppError.badRequest('Invalid user id');
  if (!principal) return;
  const mayRead = principal.user_id === userId || principal.role === 'admin';
  if (!mayRead || principal.project_id !== undefined) throw AppError.permissionDenied(OWN_DATA_ONLY_MESSAGE);
}

/**
 * A data export's stream: 400/403 before the first read (requireOwnDataReader), then every row of
 * every batch as `present` makes it.
 */
export async function* ownDataExport<Row, Item>(
  principal: Principal | null,
  userId: number,
  batches: () => AsyncIterable<Row[]>,
  present: (row: Row) => Item | Promise<Item>,
): AsyncGenerator<Item> {
  requireOwnDataReader(principal, userId);
  for await (const rows of batches()) {
    for (const row of rows) yield await present(row);
  }
}

/** The actor of an event written by operator tooling or an internal job (no principal). */
export const SYSTEM_ACTOR: EventActor = Object.freeze({ kind: 'system', user_id: null, api_key_id: null });

/**
 * The event actor (envelope v1.1) of a call: a session is its `user`, an API key is `api_key` with
 * its owner and key id, the assistant is `ai` with its system user, a system principal (with the
 * user it runs as) or none (the CLI, internal jobs) is `system`. The principal's `via` (the
 * assistant's action, or the action a person reverts) is passed through as it is.
 */
export function actorOf(principal: Principal | null | undefined): EventActor {
  if (!principal) return { ...SYSTEM_ACTOR };
  const via = principal.via ? { via: { type: principal.via.type, id: principal.via.id } } : {};
  // A system principal still names the user it runs as (the demo seeder), so keep that user.
  if (principal.kind === 'system')
    return { kind: 'system', user_id: principal.user_id, api_key_id: null, ...via };
  if (principal.kind === 'api_key')
    return { kind: 'api_key', user_id: principal.user_id, api_key_id: principal.key_id ?? null, ...via };
  if (principal.kind === 'ai') return { kind: 'ai', user_id: principal.user_id, api_key_id: null, ...via };
  return { kind: 'user', user_id: principal.user_id, api_key_id: null, ...via };
}
