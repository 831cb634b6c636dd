/**
 * Route definition with the two fallbacks every path needs: a known path asked with another method
 * answers 405 with `Allow`, and an unknown path answers 404 naming the method and path.
 */
import type { Request, RequestHandler, Router } from 'express';
import { AppError } from '@tix/kit';
import { sendError } from './envelope.js';

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The path of a request as the client sent it (no query), shortened for messages. */
export function requestPath(request: Request): string {
  const url = request.originalUrl;
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  return path.length > 200 ? `${path.slice(0, 200)}...` : path;
}

/**
 * Registers `path` on `router` with one handler chain per method; any other method gets 405 with an
 * `Allow` header (OPTIONS outside a CORS preflight gets 204 with `Allow`).
 */
export function defineRoute(
  router: Router,
  path: string,
  methods: Partial<Record<Method, RequestHandler[]>>,
): void {
  const route = router.route(path);
  const allowed: string[] = [];
  for (const [method, handlers] of Object.entries(methods) as [Method, RequestHandler[]][]) {
    route[method](...handlers);
    allowed.push(method.toUpperCase());
    if (method === 'get') allowed.push('HEAD');
  }
  allowed.push('OPTIONS');
  const allow = allowed.join(', ');
  route.all((request, response) => {
    response.setHeader('Allow', allow);
    if (request.method === 'OPTIONS') {
      response.statusCode = 204;
      response.end();
      return;
    }
    sendError(
      response,
      new AppError('method_not_allowed', `Method ${request.method} not allowed on ${requestPath(request)}`),
    );
  });
}

/** The 404 for anything no route matched. */
export function notFound(): RequestHandler {
  return (request, response) => {
    sendError(response, AppError.notFound(`Route ${request.method} ${requestPath(request)} not found`));
  };
}
