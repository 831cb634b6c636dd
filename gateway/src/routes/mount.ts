/**
 * Serves declared operations (operation.ts) on one host's router. Each operation's chain is built
 * here, once: access check -> project context -> validation -> handler. Operations sharing a path
 * share one express route, so any other method on it answers 405 with `Allow` (http/routing.ts).
 */
import type { RequestHandler, Router } from 'express';
import type { HostRole } from '../http/request-context.js';
import { defineRoute } from '../http/routing.js';
import { validate } from '../http/validate.js';
import { projectContext } from '../middleware/project-context.js';
import { requireScope } from '../middleware/require-scope.js';
import type { HttpMethod, Operation, RouteDeps } from './operation.js';

/** Mounts every operation of `operations` served on `host`, in their order. */
export function mountOperations(
  router: Router,
  host: HostRole,
  operations: readonly Operation[],
  deps: RouteDeps,
): void {
  const routes = new Map<string, Partial<Record<HttpMethod, RequestHandler[]>>>();
  for (const operation of operations) {
    if (!operation.hosts.includes(host)) continue;
    const methods = routes.get(operation.path) ?? {};
    if (methods[operation.method]) {
      throw new Error(`${operation.operationId}: ${operation.method} ${operation.path} is declared twice`);
    }
    methods[operation.method] = chainOf(operation, host, deps);
    routes.set(operation.path, methods);
  }
  for (const [path, methods] of routes) defineRoute(router, path, methods);
}

/**
 * Whether a request is one of the host's `upload` operations, whose handler reads the multipart body
 * itself: the JSON body parser leaves those alone. Built from the declarations, so a new upload
 * operation needs nothing else.
 */
export function readsOwnBody(
  operations: readonly Operation[],
  host: HostRole,
): (request: { method: string; path: string }) => boolean {
  const uploads = operations
    .filter((operation) => operation.upload && operation.hosts.includes(host))
    .map((operation) => ({
      method: operation.method.toUpperCase(),
      path: new RegExp(`^${operation.path.replace(/:[A-Za-z_]+/g, '[^/]+')}/?$`),
    }));
  return (request) =>
    uploads.some(({ method, path }) => request.method === method && path.test(request.path));
}

function chainOf(operation: Operation, host: HostRole, deps: RouteDeps): RequestHandler[] {
  const chain: RequestHandler[] = [];
  const access = accessCheck(operation, host);
  if (access) chain.push(access);
  if (operation.project !== 'none') {
    chain.push(
      projectContext({
        resolver: deps.projects,
        acceptBodyProjectId: operation.projectFromBody ?? false,
        optional: operation.project === 'optional',
      }),
    );
  }
  if (operation.request) chain.push(validate(operation.request));
  chain.push((request, response) =>
    operation.handle(
      { params: request.params, query: request.query, body: request.body as unknown },
      request,
      response,
      deps,
    ),
  );
  return chain;
}

/** The check of `operation.access` on `host`, if it needs one of its own. */
function accessCheck(operation: Operation, host: HostRole): RequestHandler | undefined {
  const { access } = operation;
  if (access === 'public' || 'session' in access) {
    // The session router itself loads the session and checks CSRF; the handler does the rest.
    if (host !== 'app') {
      throw new Error(`${operation.operationId}: session and public operations are served on the app host`);
    }
    return undefined;
  }
  if (host === 'app') {
    // Where the session host will check `access.role` of the signed-in user.
    throw new Error(`${operation.operationId}: the session host does not check roles yet`);
  }
  // Authentication came first (the API router); null means any valid key.
  return access.scope === null ? undefined : requireScope(access.scope);
}
