/**
 * The app host's /api router (browser sessions): load the session, refuse state-changing requests
 * without the CSRF token, parse the JSON body, route.
 */
import { Router } from 'express';
import { requireCsrfToken } from '../../middleware/csrf.js';
import { parseJsonBody } from '../../middleware/parse-json-body.js';
import { loadSession, type SessionOptions } from '../../middleware/session.js';
import type { ServiceClients } from '../../services.js';
import { authRoutes } from './auth.js';
import { csrfTokenRoutes } from './csrf-token.js';

export interface SessionRouterDeps {
  services: ServiceClients;
  sessions: SessionOptions;
  bodyLimitBytes: number;
}

/** The /api router (mounted by createApp on the app role only). */
export function createSessionRouter(deps: SessionRouterDeps): Router {
  const router = Router();
  router.use(loadSession(deps.sessions));
  router.use(requireCsrfToken());
  router.use(parseJsonBody({ limitBytes: deps.bodyLimitBytes }));
  csrfTokenRoutes(router, deps.sessions);
  authRoutes(router, deps);
  return router;
}
