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
import { requireAccess } from '../middleware/require-access.js';
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
 * Whether a request is one of the operations `filter` picks among those served on `host` (method and
 * path), for the middleware that runs before routing: the JSON body parser's exemption of uploads,
 * the session host's sign-in gate. Built from the declarations, so a new operation needs nothing else.
 */
export function matchesOperations(
  operations: readonly Operation[],
  host: HostRole,
  filter: (operation: Operation) => boolean,
): (request: { method: string; path: string }) => boolean {
  const picked = operations
    .filter((operation) => operation.hosts.includes(host) && filter(operation))
    .map((operation) => ({
      method: operation.method.toUpperCase(),
      path: new RegExp(`^${operation.path.replace(/:[A-Za-z_]+/g, '[^/]+')}/?$`),
    }));
  return (request) => {
    // Express answers HEAD with the GET route.
    const method = request.method === 'HEAD' ? 'GET' : request.method;
    return picked.some((operation) => operation.method === method && operation.path.test(request.path));
  };
}

/** Uploads read their multipart body themselves: the JSON body parser leaves them alone. */
export function readsOwnBody(
  operations: readonly Operation[],
  host: HostRole,
): (request: { method: string; path: string }) => boolean {
  return matchesOperations(operations, host, (operation) => operation.upload !== undefined);
}

/** What the session host serves without a signed-in user: the public and session-optional operations. */
export function isOpenWithoutSignIn(
  operations: readonly Operation[],
): (request: { method: string; path: string }) => boolean {
  return matchesOperations(
    operations,
    'app',
    ({ access }) => access === 'public' || ('session' in access && access.session === 'optional'),
  );
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
  return requireAccess(access, host);
}
