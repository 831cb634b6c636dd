/**
 * The API host's /v1 router: every request is authenticated by API key first (unknown paths too, so
 * an anonymous caller learns nothing about routes), then its JSON body is parsed, then routed.
 */
import { Router } from 'express';
import { authenticateApiKey } from '../../middleware/authenticate-api-key.js';
import { parseJsonBody } from '../../middleware/parse-json-body.js';
import { OPERATIONS } from '../index.js';
import { mountOperations, readsOwnBody } from '../mount.js';
import type { RouteDeps } from '../operation.js';

export interface ApiRouterDeps extends RouteDeps {
  bodyLimitBytes: number;
}

/** The /v1 router (mounted by createApp on the API role only). */
export function createApiRouter(deps: ApiRouterDeps): Router {
  const router = Router();
  router.use(authenticateApiKey(deps.apiKeys));
  // Rate limit (failed authentication counts as anonymous) and quota, then idempotency once the body
  // is parsed (limits/index.ts).
  for (const handler of deps.limits?.afterAuthentication ?? []) router.use(handler);
  // Uploads (attachments) are multipart and streamed by their handler.
  router.use(parseJsonBody({ limitBytes: deps.bodyLimitBytes, isExempt: readsOwnBody(OPERATIONS, 'api') }));
  for (const handler of deps.limits?.afterBodyParsing ?? []) router.use(handler);
  mountOperations(router, 'api', OPERATIONS, deps);
  return router;
}
