/**
 * The app host's /api router (browser sessions): load the session, refuse anonymous callers (but on
 * the open operations: sign-in, the CSRF token, the API description), refuse state-changing requests
 * without the CSRF token, parse the JSON body, route. The v1 resources are the same declarations as
 * on the API host, checked by role instead of scope (middleware/require-access.ts).
 */
import { Router } from 'express';
import type { CorsPolicy } from '../../middleware/cors.js';
import { requireCsrfToken } from '../../middleware/csrf.js';
import { parseJsonBody } from '../../middleware/parse-json-body.js';
import { loadSession, requireSignedIn } from '../../middleware/session.js';
import { OPERATIONS } from '../index.js';
import { isOpenWithoutSignIn, mountOperations, readsOwnBody } from '../mount.js';
import type { RouteDeps } from '../operation.js';

export interface SessionRouterDeps extends RouteDeps {
  cors: CorsPolicy;
  bodyLimitBytes: number;
}

/** The /api router (mounted by createApp on the app role only). */
export function createSessionRouter(deps: SessionRouterDeps): Router {
  const router = Router();
  router.use(loadSession(deps.sessions));
  // Rate limit by session (signed in) or client address, then idempotency after body parsing.
  for (const handler of deps.limits?.afterAuthentication ?? []) router.use(handler);
  router.use(requireSignedIn(isOpenWithoutSignIn(OPERATIONS)));
  // The origins of CORS_ORIGINS (a list, not "*") are trusted to send state-changing requests too.
  router.use(requireCsrfToken({ trustedOrigins: deps.cors.mode === 'list' ? deps.cors.origins : [] }));
  router.use(parseJsonBody({ limitBytes: deps.bodyLimitBytes, isExempt: readsOwnBody(OPERATIONS, 'app') }));
  for (const handler of deps.limits?.afterBodyParsing ?? []) router.use(handler);
  mountOperations(router, 'app', OPERATIONS, { ...deps, operations: OPERATIONS });
  return router;
}
