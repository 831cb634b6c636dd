/**
 * The API description on the app host, public like any API documentation:
 *   GET /api/openapi        the OpenAPI 3.1 document as plain JSON (a resource of its own, not in the envelope);
 *   GET /api/docs           the reference page (Swagger UI);
 *   GET /api/docs/{asset}   the page's scripts, style sheet and icons.
 * Mounted like every session route, so the same rate limits and headers apply (no session is needed).
 */
import { z } from 'zod';
import { AppError } from '@tix/kit';
import { operationGroup, type Operation } from '../operation.js';

export const DOCS_ASSET_NOT_FOUND_MESSAGE = 'No such file of the API reference page';

/** Path of /docs/{asset}: a file name (which files exist is the asset table's business: 404 otherwise). */
export const docsAssetParams = z.object({
  asset: z
    .string({ error: DOCS_ASSET_NOT_FOUND_MESSAGE })
    .max(100, DOCS_ASSET_NOT_FOUND_MESSAGE)
    .meta({ description: 'A file of the page.', example: 'swagger-ui.css' }),
});

const descriptionOperation = operationGroup({ hosts: ['app'], project: 'none', tag: 'API description' });

export const API_DESCRIPTION_OPERATIONS: Operation[] = [
  descriptionOperation({
    method: 'get',
    path: '/openapi',
    access: 'public',
    operationId: 'getOpenApiDocument',
    summary: 'This OpenAPI 3.1 document',
    success: { kind: 'openapi_document' },
    errors: [],
    handle: ({ apiDescriptionJson }) => ({
      document: {
        contentType: 'application/json; charset=utf-8',
        body: apiDescriptionJson,
        cacheControl: 'public, max-age=300',
      },
    }),
  }),

  descriptionOperation({
    method: 'get',
    path: '/docs',
    access: 'public',
    operationId: 'getApiReferencePage',
    summary: 'The API reference page (HTML)',
    success: { kind: 'docs_page' },
    errors: [],
    handle({ apiReference, baseUrl }) {
      const { html, headers } = apiReference.page(baseUrl);
      return {
        document: { contentType: 'text/html; charset=utf-8', body: html, cacheControl: 'no-cache' },
        headers,
      };
    },
  }),

  descriptionOperation({
    method: 'get',
    path: '/docs/:asset',
    access: 'public',
    request: { params: docsAssetParams },
    operationId: 'getApiReferenceAsset',
    summary: 'A static file of the reference page',
    success: { kind: 'docs_asset' },
    errors: [404],
    handle({ params, apiReference }) {
      const file = apiReference.asset(params.asset);
      if (!file) throw AppError.notFound(DOCS_ASSET_NOT_FOUND_MESSAGE);
      return {
        document: { contentType: file.contentType, body: file.body, cacheControl: 'public, max-age=3600' },
      };
    },
  }),
];
