/**
 * The API description on the app host, public like any API documentation:
 *   GET /api/openapi        the OpenAPI 3.1 document as plain JSON (a resource of its own, not in the envelope);
 *   GET /api/docs           the reference page (Swagger UI);
 *   GET /api/docs/{asset}   the page's scripts, style sheet and icons.
 * Mounted like every session route, so the same rate limits and headers apply (no session is needed).
 */
import type { Response } from 'express';
import { AppError } from '@tix/kit';
import {
  DOCS_ASSET_NOT_FOUND_MESSAGE,
  DOCS_CONTENT_SECURITY_POLICY,
  docsAssetParams,
  docsAssets,
  docsPageHtml,
} from '../../openapi/docs-page.js';
import { defineOperation, type Operation } from '../operation.js';

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

export const API_DESCRIPTION_OPERATIONS: Operation[] = [
  defineOperation({
    method: 'get',
    path: '/openapi',
    hosts: ['app'],
    access: 'public',
    project: 'none',
    operationId: 'getOpenApiDocument',
    tag: 'API description',
    summary: 'This OpenAPI 3.1 document',
    description: 'Plain JSON (not in the envelope): the document is a resource of its own. No credentials.',
    success: { kind: 'openapi_document' },
    errors: [],
    handle(_input, _request, response, { apiDescriptionJson }) {
      send(response, 'application/json; charset=utf-8', apiDescriptionJson, 'public, max-age=300');
    },
  }),

  defineOperation({
    method: 'get',
    path: '/docs',
    hosts: ['app'],
    access: 'public',
    project: 'none',
    operationId: 'getApiReferencePage',
    tag: 'API description',
    summary: 'The API reference page (HTML)',
    success: { kind: 'docs_page' },
    errors: [],
    handle(_input, request, response) {
      send(response, 'text/html; charset=utf-8', docsPageHtml(request.baseUrl), 'no-cache', {
        'Content-Security-Policy': DOCS_CONTENT_SECURITY_POLICY,
        'Referrer-Policy': 'no-referrer',
      });
    },
  }),

  defineOperation({
    method: 'get',
    path: '/docs/:asset',
    hosts: ['app'],
    access: 'public',
    project: 'none',
    request: { params: docsAssetParams },
    operationId: 'getApiReferenceAsset',
    tag: 'API description',
    summary: 'A static file of the reference page',
    success: { kind: 'docs_asset' },
    errors: [404],
    handle({ params }, _request, response) {
      const file = docsAssets().get(params.asset);
      if (!file) throw AppError.notFound(DOCS_ASSET_NOT_FOUND_MESSAGE);
      send(response, file.contentType, file.body, 'public, max-age=3600');
    },
  }),
];
