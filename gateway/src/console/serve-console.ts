/**
 * Serves the agent console (gateway/web's build) on the session host, after /api
 * (docs/architecture.md, "The console"):
 *   GET /assets/<file>  a hashed file of the build: cached for a year, `immutable`; gzip when the
 *                       client accepts it; a name the build does not have is the 404 envelope;
 *   any other GET that prefers HTML (a browser navigating to /, /board, /tickets/42...): index.html,
 *                       `no-cache`, with the console's Content-Security-Policy (no inline script or
 *                       style anywhere) and the security headers.
 * Everything else falls through to the 404 envelope. The files are read once, at start.
 *
 * When the build is missing (a checkout where `pnpm install` has not run), the gateway still starts:
 * a warning is logged once, and the pages answer 503 with a message saying how to build it.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { Router, type Request, type Response } from 'express';
import { AppError, type Logger } from '@tix/kit';
import { sendError } from '../http/envelope.js';

export const CONSOLE_CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');
export const ASSET_CACHE_CONTROL = 'public, max-age=31536000, immutable';
export const ASSET_NOT_FOUND_MESSAGE = 'Asset not found';
export const CONSOLE_NOT_BUILT_MESSAGE =
  'The Tix console is not built. Run `pnpm install` at the repository root (it builds gateway/web/dist), then restart the gateway.';

const CONTENT_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

interface Asset {
  contentType: string;
  body: Buffer;
  /** Only when it is smaller than the body. */
  gzipped: Buffer | null;
}

interface ConsoleBuild {
  indexHtml: Buffer;
  assets: Map<string, Asset>;
}

/**
 * Where the build is: gateway/web/dist in a checkout (this file is gateway/src/console/), or
 * console/ beside the bundle's dist/ in the image (deploy/images/build-service-image.ts puts it there).
 */
export function defaultConsoleDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.resolve(here, '../../web/dist'), path.resolve(here, '../console')];
  return candidates.find((dir) => existsSync(path.join(dir, 'index.html'))) ?? candidates[0]!;
}

/** Reads the build in `dir`, or null when it has no index.html. */
export function readConsoleBuild(dir: string): ConsoleBuild | null {
  const indexFile = path.join(dir, 'index.html');
  if (!existsSync(indexFile)) return null;
  const assets = new Map<string, Asset>();
  const assetsDir = path.join(dir, 'assets');
  if (existsSync(assetsDir)) {
    for (const name of readdirSync(assetsDir)) {
      const file = path.join(assetsDir, name);
      if (!statSync(file).isFile()) continue;
      const body = readFileSync(file);
      const gzipped = gzipSync(body, { level: 9 });
      assets.set(name, {
        contentType: CONTENT_TYPES[path.extname(name)] ?? 'application/octet-stream',
        body,
        gzipped: gzipped.length < body.length ? gzipped : null,
      });
    }
  }
  return { indexHtml: readFileSync(indexFile), assets };
}

let warnedNotBuilt = false;

function send(
  request: Request,
  response: Response,
  status: number,
  headers: Record<string, string>,
  body: Buffer,
) {
  response.statusCode = status;
  for (const [name, value] of Object.entries(headers)) response.setHeader(name, value);
  response.setHeader('Content-Length', body.length);
  response.setHeader('X-Content-Type-Options', 'nosniff');
  response.end(request.method === 'HEAD' ? undefined : body);
}

/** True for a navigation (a browser asks for HTML first), not for an API client asking for JSON or anything. */
function prefersHtml(request: Request): boolean {
  return request.accepts(['json', 'html']) === 'html';
}

/** The console's router (mounted by createApp for the app role only, after /api). */
export function serveConsole(options: { dir?: string; logger: Logger }): Router {
  const dir = options.dir ?? defaultConsoleDir();
  const build = readConsoleBuild(dir);
  if (!build && !warnedNotBuilt) {
    warnedNotBuilt = true;
    options.logger.warn({ dir }, 'the console is not built: run `pnpm install`; / answers 503 until then');
  }
  const router = Router();

  router.get('/assets/:name', (request, response) => {
    const asset = build?.assets.get(request.params.name);
    if (!asset) {
      sendError(response, AppError.notFound(ASSET_NOT_FOUND_MESSAGE));
      return;
    }
    const gzip = asset.gzipped !== null && request.acceptsEncodings(['gzip', 'identity']) === 'gzip';
    const headers: Record<string, string> = {
      'Content-Type': asset.contentType,
      'Cache-Control': ASSET_CACHE_CONTROL,
      Vary: 'Accept-Encoding',
    };
    if (gzip) headers['Content-Encoding'] = 'gzip';
    send(request, response, 200, headers, gzip ? asset.gzipped! : asset.body);
  });

  router.get(/.*/, (request, response, next) => {
    // /api stays the JSON API's, whatever the client accepts (its unknown paths answer the envelope).
    const isApiPath = request.path === '/api' || request.path.startsWith('/api/');
    if (isApiPath || !prefersHtml(request) || request.path.startsWith('/assets/')) {
      next();
      return;
    }
    if (!build) {
      send(
        request,
        response,
        503,
        { 'Content-Type': 'text/plain; charset=utf-8', 'Cache-Control': 'no-store' },
        Buffer.from(`${CONSOLE_NOT_BUILT_MESSAGE}\n`),
      );
      return;
    }
    send(
      request,
      response,
      200,
      {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-cache',
        'Content-Security-Policy': CONSOLE_CONTENT_SECURITY_POLICY,
        'Referrer-Policy': 'same-origin',
        'X-Frame-Options': 'DENY',
      },
      build.indexHtml,
    );
  });
  return router;
}
