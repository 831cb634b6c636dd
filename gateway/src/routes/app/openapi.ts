/**
 * The API description on the app host, public like any API documentation:
 *   GET /api/openapi        the OpenAPI 3.1 document as plain JSON (a resource of its own, not in the envelope);
 *   GET /api/docs           the reference page (Swagger UI);
 *   GET /api/docs/{asset}   the page's scripts, style sheet and icons.
 * Mounted like every session route, so the same rate limits and headers apply (no session is needed).
 */
import type { Response, Router } from 'express';
import { AppError } from '@tix/kit';
import { defineRoute } from '../../http/routing.js';
import { handleValidated } from '../../http/validate.js';
import {
  DOCS_ASSET_NOT_FOUND_MESSAGE,
  DOCS_CONTENT_SECURITY_POLICY,
  docsAssetParams,
  docsAssets,
  docsPageHtml,
} from '../../openapi/docs-page.js';
import { openApiDocumentJson } from '../../openapi/document.js';

function send(
  response: Response,
  contentType: string,
  body: string | Buffer,
  cacheControl: string,
  extraHeaders: Record<string, string> = {},
): void {
  response.statusCode = 200;
  response.setHeader('Content-Type', contentType);
  response.setHeader('Content-Length', Buffer.byteLength(body));
  response.setHeader('Cache-Control', cacheControl);
  response.setHeader('X-Content-Type-Options', 'nosniff');
  for (const [name, value] of Object.entries(extraHeaders)) response.setHeader(name, value);
  response.end(body);
}

/** Registers /openapi, /docs and /docs/:asset on the session router. */
export function openApiRoutes(router: Router): void {
  // Built here, at start (once per process): a table that cannot be described fails the start, not a request.
  const documentJson = openApiDocumentJson();
  defineRoute(router, '/openapi', {
    get: [
      (_request, response) =>
        send(response, 'application/json; charset=utf-8', documentJson, 'public, max-age=300'),
    ],
  });

  defineRoute(router, '/docs', {
    get: [
      (request, response) =>
        send(response, 'text/html; charset=utf-8', docsPageHtml(request.baseUrl), 'no-cache', {
          'Content-Security-Policy': DOCS_CONTENT_SECURITY_POLICY,
          'Referrer-Policy': 'no-referrer',
        }),
    ],
  });

  defineRoute(router, '/docs/:asset', {
    get: handleValidated({ params: docsAssetParams }, ({ params }, _request, response) => {
      const file = docsAssets().get(params.asset);
      if (!file) throw AppError.notFound(DOCS_ASSET_NOT_FOUND_MESSAGE);
      send(response, file.contentType, file.body, 'public, max-age=3600');
    }),
  });
}
