/**
 * The app host's /api router (browser sessions): load the session, refuse state-changing requests
 * without the CSRF token, parse the JSON body, route.
 */
import { Router } from 'express';
import type { GatewayLimits } from '../../limits/index.js';
import { requireCsrfToken } from '../../middleware/csrf.js';
import { parseJsonBody } from '../../middleware/parse-json-body.js';
import { loadSession } from '../../middleware/session.js';
import { OPERATIONS } from '../index.js';
import { mountOperations } from '../mount.js';
import type { RouteDeps } from '../operation.js';

export interface SessionRouterDeps extends RouteDeps {
  bodyLimitBytes: number;
  limits?: GatewayLimits;
}

/** The /api router (mounted by createApp on the app role only). */
export function createSessionRouter(deps: SessionRouterDeps): Router {
  const router = Router();
  router.use(loadSession(deps.sessions));
  // Rate limit by session (signed in) or client address, then idempotency after body parsing.
  for (const handler of deps.limits?.afterAuthentication ?? []) router.use(handler);
  router.use(requireCsrfToken());
  router.use(parseJsonBody({ limitBytes: deps.bodyLimitBytes }));
  for (const handler of deps.limits?.afterBodyParsing ?? []) router.use(handler);
  mountOperations(router, 'app', OPERATIONS, deps);
  return router;
}
