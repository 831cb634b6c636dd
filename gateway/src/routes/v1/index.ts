/**
 * The API host's /v1 router: every request is authenticated by API key first (unknown paths too, so
 * an anonymous caller learns nothing about routes), then its JSON body is parsed, then routed.
 */
import { Router } from 'express';
import type { ApiKeyAuthenticator } from '../../auth/api-key-authenticator.js';
import type { GatewayLimits } from '../../limits/index.js';
import { authenticateApiKey } from '../../middleware/authenticate-api-key.js';
import { parseJsonBody } from '../../middleware/parse-json-body.js';
import type { ProjectResolver } from '../../projects/project-resolver.js';
import type { ServiceClients } from '../../services.js';
import { attachmentRoutes, isAttachmentUpload } from './attachments.js';
import type { AttachmentLimits } from './attachments.schemas.js';
import { boardRoutes } from './board.js';
import { commentRoutes } from './comments.js';
import { projectRoutes } from './projects.js';
import { ticketTypeRoutes } from './ticket-types.js';
import { ticketRoutes } from './tickets.js';
import { userRoutes } from './users.js';
import { webhookRoutes } from './webhooks.js';

export interface ApiRouterDeps {
  services: ServiceClients;
  apiKeys: ApiKeyAuthenticator;
  projects: ProjectResolver;
  bodyLimitBytes: number;
  attachments: AttachmentLimits;
  limits?: GatewayLimits;
}

/** The /v1 router (mounted by createApp on the API role only). */
export function createApiRouter(deps: ApiRouterDeps): Router {
  const router = Router();
  router.use(authenticateApiKey(deps.apiKeys));
  // Rate limit (failed authentication counts as anonymous) and quota, then idempotency once the body
  // is parsed (limits/index.ts).
  for (const handler of deps.limits?.afterAuthentication ?? []) router.use(handler);
  // Attachment uploads are multipart and streamed by their route.
  router.use(parseJsonBody({ limitBytes: deps.bodyLimitBytes, isExempt: isAttachmentUpload }));
  for (const handler of deps.limits?.afterBodyParsing ?? []) router.use(handler);
  projectRoutes(router, deps);
  ticketTypeRoutes(router, deps);
  userRoutes(router, deps);
  ticketRoutes(router, deps);
  boardRoutes(router, deps);
  commentRoutes(router, deps);
  attachmentRoutes(router, deps);
  webhookRoutes(router, deps);
  return router;
}
