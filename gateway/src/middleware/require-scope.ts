/**
 * Scope enforcement (spec Authentication 4), declared on each route: `requireScope('tickets:read')`.
 * A caller lacking the scope gets 403 `Missing required scope: <scope>`.
 */
import type { RequestHandler } from 'express';
import { AppError } from '@tix/kit';
import type { Scope } from '@tix/protos';
import { requirePrincipal } from '../http/request-context.js';

/** Passes only callers whose principal carries `scope`. */
export function requireScope(scope: Scope): RequestHandler {
  const message = `Missing required scope: ${scope}`;
  return (request, _response, next) => {
    if (!requirePrincipal(request).scopes.includes(scope)) throw AppError.permissionDenied(message);
    next();
  };
}
