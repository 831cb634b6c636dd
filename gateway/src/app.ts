/**
 * The gateway's express application (no listening: main.ts and tests mount it). Order matters:
 * correlation id (every response carries it) -> CORS -> JSON compression (wraps the response for
 * every later writer) -> probes (any host) -> host role -> API keys
 * only on the API host -> /v1 (API role) or /api (app role) -> the console's pages and assets (app
 * role) -> 404 -> error envelope.
 */
import express, { type Express, type RequestHandler, type Router } from 'express';
import type { Logger } from '@tix/kit';
import type { ApiKeyAuthenticator } from './auth/api-key-authenticator.js';
import { serveConsole } from './console/serve-console.js';
import { compressJson } from './http/compression.js';
import { errorHandler } from './http/error-handler.js';
import type { HostRole } from './http/request-context.js';
import { notFound } from './http/routing.js';
import { apiKeyOnlyOnApiHost } from './middleware/api-key-only-on-api-host.js';
import { correlationId, installRequestLogger } from './middleware/correlation-id.js';
import { cors, type CorsPolicy } from './middleware/cors.js';
import type { GatewayLimits } from './limits/index.js';
import { hostRole } from './middleware/host-role.js';
import { httpMetrics, installRoutePatternCapture } from './middleware/http-metrics.js';
import type { PasswordResetMailer } from './mail/password-reset-mail.js';
import type { SessionOptions } from './middleware/session.js';
import { openApiDocumentJson } from './openapi/document.js';
import { apiReference } from './openapi/docs-page.js';
import type { ProjectResolver } from './projects/project-resolver.js';
import { createSessionRouter } from './routes/app/index.js';
import { healthRoutes } from './routes/health.js';
import type { AttachmentLimits } from './routes/v1/attachments.schemas.js';
import { createApiRouter } from './routes/v1/index.js';
import type { ServiceClients } from './services.js';

export interface AppDeps {
  /** The role of the listener this app serves; null when one listener serves both (Host decides). */
  listenerRole: HostRole | null;
  apiHosts: readonly string[];
  appHosts: readonly string[];
  cors: CorsPolicy;
  bodyLimitBytes: number;
  attachments: AttachmentLimits;
  readinessTimeoutMs: number;
  logger: Logger;
  services: ServiceClients;
  apiKeys: ApiKeyAuthenticator;
  projects: ProjectResolver;
  sessions: SessionOptions;
  /** True once shutdown began: /readyz answers 503 and connections are not kept alive. */
  isShuttingDown: () => boolean;
  /** Rate limits, quotas, idempotency (limits/index.ts); absent = none (tests). */
  limits?: GatewayLimits;
  /** Mails password reset links (mail/). */
  passwordResetMail: PasswordResetMailer;
}

/** Runs `router` only for requests of `role`; others fall through (to the 404). */
function forRole(role: HostRole, router: Router): RequestHandler {
  return (request, response, next) => {
    if (request.hostRole === role) router(request, response, next);
    else next();
  };
}

/** Builds the express app for one listener. */
export function createApp(deps: AppDeps): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  installRequestLogger(app, deps.logger);
  // First, so every request is counted and timed, refusals included (tix_http_*).
  installRoutePatternCapture(app);
  app.use(httpMetrics());

  app.use(correlationId(deps.logger));
  app.use((_request, response, next) => {
    if (deps.isShuttingDown()) response.setHeader('Connection', 'close');
    next();
  });
  app.use(cors(deps.cors));
  app.use(compressJson());
  app.use(healthRoutes(deps));
  app.use(hostRole(deps));
  app.use(apiKeyOnlyOnApiHost());
  // Built at start: an operation that cannot be described stops the gateway, not a request.
  const routeDeps = { ...deps, apiDescriptionJson: openApiDocumentJson(), apiReference: apiReference() };
  app.use('/v1', forRole('api', createApiRouter(routeDeps)));
  app.use('/api', forRole('app', createSessionRouter(routeDeps)));
  app.use(forRole('app', serveConsole({ logger: deps.logger })));
  // Requests no router counted (unknown paths, refusals before a router) still count and get headers.
  for (const handler of deps.limits?.beforeNotFound ?? []) app.use(handler);
  app.use(notFound());
  app.use(errorHandler());
  return app;
}
