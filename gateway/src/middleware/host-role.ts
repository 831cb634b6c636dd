/**
 * Which face of the gateway a request reaches. Locally the listener decides (API port -> api, app
 * port -> app). When API_HOSTS / APP_HOSTS are set, the Host header decides (port ignored), on every
 * listener; a host in neither list is answered 404. One listener serving both roles (equal ports)
 * has no role of its own and always decides by Host.
 */
import type { RequestHandler } from 'express';
import { AppError } from '@tix/kit';
import { sendError } from '../http/envelope.js';
import type { HostRole } from '../http/request-context.js';

/** "API.Example.com:443" -> "api.example.com"; "[::1]:80" -> "[::1]". */
export function normalizeHostName(value: string): string {
  let host = value.trim().toLowerCase();
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    return end === -1 ? host : host.slice(0, end + 1);
  }
  const colon = host.indexOf(':');
  if (colon !== -1) host = host.slice(0, colon);
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

export interface HostRoleOptions {
  /** The role of the listener this app is mounted on; null when one listener serves both roles. */
  listenerRole: HostRole | null;
  apiHosts: readonly string[];
  appHosts: readonly string[];
}

/** The role for a Host header, or null when the host is not served. */
export function resolveHostRole(
  hostHeader: string | undefined,
  options: { listenerRole: HostRole | null; apiHosts: ReadonlySet<string>; appHosts: ReadonlySet<string> },
): HostRole | null {
  if (options.apiHosts.size === 0 && options.appHosts.size === 0) return options.listenerRole;
  if (hostHeader === undefined) return null;
  const host = normalizeHostName(hostHeader);
  if (options.apiHosts.has(host)) return 'api';
  if (options.appHosts.has(host)) return 'app';
  return null;
}

/** Sets request.hostRole, or answers 404 for a host this gateway does not serve. */
export function hostRole(options: HostRoleOptions): RequestHandler {
  const resolved = {
    listenerRole: options.listenerRole,
    apiHosts: new Set(options.apiHosts),
    appHosts: new Set(options.appHosts),
  };
  return (request, response, next) => {
    const role = resolveHostRole(request.headers.host, resolved);
    if (role === null) {
      sendError(response, AppError.notFound('Unknown host'));
      return;
    }
    request.hostRole = role;
    next();
  };
}
