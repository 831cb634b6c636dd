/**
 * Who may call an operation, checked in this one place for both hosts (operation.ts `access`):
 * - API host: the key must carry the operation's scope (spec Authentication 4: 403
 *   `Missing required scope: <scope>`) and its owner's role must allow that scope (the roles
 *   table, ROLE_SCOPES): a key never exceeds its owner, so a viewer's key cannot write.
 * - Session host: the signed-in user's role must be at least the operation's role.
 * Authentication came first (the API router's key check, the session router's sign-in gate).
 */
import type { RequestHandler } from 'express';
import { AppError } from '@tix/kit';
import { roleAllows, roleAtLeast, type Principal, type Role, type Scope } from '@tix/protos';
import { requirePrincipal, type HostRole } from '../http/request-context.js';

/**
 * Who may call an operation:
 * - `{ scope, role }`: an API key holding `scope` (null: any valid key) on the API host; a user of
 *   at least `role` (admin > team_lead > agent > viewer) on the session host;
 * - `{ session }`: the session host's own operations (sign-in and the like), with or without a
 *   signed-in user (`signed_in`: the handler answers 401 `Not signed in` otherwise);
 * - `'public'`: no credentials at all (the API description).
 * CSRF needs no saying: the session host checks it on every state-changing method.
 */
export type Access = { scope: Scope | null; role: Role } | { session: 'optional' | 'signed_in' } | 'public';

export function missingScopeMessage(scope: Scope): string {
  return `Missing required scope: ${scope}`;
}

export function keyOwnerRoleMessage(role: Role, scope: Scope): string {
  return `The key's owner has the ${role} role, which does not allow ${scope}`;
}

export function roleTooLowMessage(role: Role, needed: Role): string {
  return `Your role (${role}) does not allow this; it needs ${needed} or higher`;
}

/**
 * Whether `principal` may use `scope`: it carries it (a key's scopes; a session's are its role's) and
 * its role allows it. The same test requireAccess applies, for routes whose answer depends on a
 * second scope (the activity feed shows comment text only to callers who may read comments).
 */
export function holdsScope(principal: Principal, scope: Scope): boolean {
  return principal.scopes.includes(scope) && roleAllows(principal.role, scope);
}

/** Whether a signed-in user of `role` may call an operation of `access` on the session host. */
export function sessionRoleAllows(access: Access, role: Role): boolean {
  return typeof access === 'string' || 'session' in access || roleAtLeast(role, access.role);
}

/**
 * The operation ids a signed-in user of `role` may call on the session host, sorted: what the console
 * shows or hides, decided by the declarations requireAccess enforces (GET /api/auth/me).
 */
export function allowedSessionOperations(
  operations: readonly { hosts: readonly HostRole[]; access: Access; operationId: string }[],
  role: Role,
): string[] {
  return operations
    .filter((operation) => operation.hosts.includes('app') && sessionRoleAllows(operation.access, role))
    .map((operation) => operation.operationId)
    .sort();
}

/** The check of `access` on `host`; undefined when every authenticated caller passes. */
export function requireAccess(
  access: { scope: Scope | null; role: Role },
  host: HostRole,
): RequestHandler | undefined {
  if (host === 'app') {
    if (access.role === 'viewer') return undefined;
    return (request, _response, next) => {
      const { role } = requirePrincipal(request);
      if (!sessionRoleAllows(access, role))
        throw AppError.permissionDenied(roleTooLowMessage(role, access.role));
      next();
    };
  }
  const { scope } = access;
  if (scope === null) return undefined;
  return (request, _response, next) => {
    const principal = requirePrincipal(request);
    if (!principal.scopes.includes(scope)) throw AppError.permissionDenied(missingScopeMessage(scope));
    if (!roleAllows(principal.role, scope)) {
      throw AppError.permissionDenied(keyOwnerRoleMessage(principal.role, scope));
    }
    next();
  };
}
