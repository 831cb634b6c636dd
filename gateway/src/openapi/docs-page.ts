/**
 * The human reference page: Swagger UI 5 from the swagger-ui-dist package (no CDN), rendering the
 * OpenAPI document. Only an allow-list of its files is served, read once on first use. The page has
 * no inline script (a strict Content-Security-Policy); its configuration lives in a small script of
 * our own. "Try it out" is off: the page lives on the session host, and API keys belong on the API
 * host only.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
// The module that only knows where the package is: importing the package's index would load the
// whole browser bundle into the gateway. A real import, so the image build ships swagger-ui-dist.
import getAbsoluteFSPath from 'swagger-ui-dist/absolute-path.js';
import type { ApiReference } from '../routes/operation.js';

export interface StaticFile {
  contentType: string;
  body: Buffer;
}

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.png': 'image/png',
};

/** The swagger-ui-dist files the page uses. */
export const SWAGGER_UI_FILES = [
  'swagger-ui.css',
  'swagger-ui-bundle.js',
  'favicon-32x32.png',
  'favicon-16x16.png',
] as const;

/** Our configuration of Swagger UI; the document URL comes from the page (data-openapi-url). */
export const INIT_SCRIPT_NAME = 'tix-init.js';
const INIT_SCRIPT = `'use strict';
window.addEventListener('load', function () {
  var root = document.getElementById('swagger-ui');
  window.ui = SwaggerUIBundle({
    url: root.getAttribute('data-openapi-url'),
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    supportedSubmitMethods: [],
    defaultModelsExpandDepth: 1,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

/**
 * The page's policy: scripts, styles, images and fetches from this origin only. Swagger UI sets
 * inline styles and draws its icons as data: images, so those two are allowed; nothing else is.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

let files: Map<string, StaticFile> | undefined;

/** The page's static files by name (read from swagger-ui-dist on first use). */
export function docsAssets(): ReadonlyMap<string, StaticFile> {
  if (!files) {
    const directory = getAbsoluteFSPath();
    const loaded = new Map<string, StaticFile>();
    for (const name of SWAGGER_UI_FILES) {
      loaded.set(name, {
        contentType: CONTENT_TYPES[path.extname(name)]!,
        body: readFileSync(path.join(directory, name)),
      });
    }
    loaded.set(INIT_SCRIPT_NAME, { contentType: CONTENT_TYPES['.js']!, body: Buffer.from(INIT_SCRIPT) });
    files = loaded;
  }
  return files;
}

function escapeAttribute(value: string): string {
  return value.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * The HTML of the page; `base` is where the session router is mounted (`/api`), so the assets are
 * `<base>/docs/<file>` and the document `<base>/openapi`, whatever the page's own URL looks like.
 */
export function docsPageHtml(base: string): string {
  const at = (file: string) => escapeAttribute(`${base}/docs/${file}`);
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Tix API reference</title>
    <link rel="stylesheet" href="${at('swagger-ui.css')}" />
    <link rel="icon" type="image/png" href="${at('favicon-32x32.png')}" sizes="32x32" />
    <link rel="icon" type="image/png" href="${at('favicon-16x16.png')}" sizes="16x16" />
  </head>
  <body>
    <div id="swagger-ui" data-openapi-url="${escapeAttribute(`${base}/openapi`)}"></div>
    <script src="${at('swagger-ui-bundle.js')}"></script>
    <script src="${at(INIT_SCRIPT_NAME)}"></script>
  </body>
</html>
`;
}

/** The page and its files as the API description's routes serve them (routes/app/openapi.ts). */
export function apiReference(): ApiReference {
  return {
    page: (baseUrl) => ({
      html: docsPageHtml(baseUrl),
      headers: { 'Content-Security-Policy': DOCS_CONTENT_SECURITY_POLICY, 'Referrer-Policy': 'no-referrer' },
    }),
    asset: (name) => docsAssets().get(name),
  };
}
