/** gRPC handlers of the API key RPCs: translate messages, nothing else. */
import type { ProjectSelector } from '../projects/project-service.js';
import { requireAdminCaller } from '../shared/admin-caller.js';
import type { LookupHandlers } from '../shared/handler-types.js';
import type { UserSelector } from '../users/user-service.js';
import type { ApiKeyAuthenticator } from './api-key-authentication.js';
import { toApiKeyMessage, toCreatedApiKeyMessage, toPrincipalMessage } from './api-key-mapper.js';
import type { ApiKeyService } from './api-key-service.js';

/** AuthenticateApiKey, CreateApiKey, ListApiKeys and RevokeApiKey. */
export function apiKeyHandlers(
  keys: ApiKeyService,
  authenticator: ApiKeyAuthenticator,
): Pick<LookupHandlers, 'AuthenticateApiKey' | 'CreateApiKey' | 'ListApiKeys' | 'RevokeApiKey'> {
  return {
    async AuthenticateApiKey(request) {
      return toPrincipalMessage(await authenticator.authenticateApiKey(request.key));
    },

    async CreateApiKey(request, context) {
      requireAdminCaller(context);
      let user: UserSelector | undefined;
      if (request.user === 'user_id' && request.user_id !== undefined) user = { id: request.user_id };
      else if (request.user === 'user_email' && request.user_email !== undefined)
        user = { email: request.user_email };
      let project: ProjectSelector | undefined;
      if (request.project === 'project_id' && request.project_id !== undefined)
        project = { id: request.project_id };
      else if (request.project === 'project_slug' && request.project_slug !== undefined)
        project = { slug: request.project_slug };
      const { key, value } = await keys.createApiKey({
        scopes: request.scopes,
        name: request.name,
        ...(user ? { user } : {}),
        ...(project ? { project } : {}),
      });
      return toCreatedApiKeyMessage(key, value);
    },

    async ListApiKeys(request, context) {
      requireAdminCaller(context);
      const list = await keys.listApiKeys({
        ...(request.user_email === undefined ? {} : { userEmail: request.user_email }),
        ...(request.project_slug === undefined ? {} : { projectSlug: request.project_slug }),
        ...(request.user_id === undefined ? {} : { userId: request.user_id }),
        ...(request.project_id === undefined ? {} : { projectId: request.project_id }),
      });
      return { keys: list.map(toApiKeyMessage) };
    },

    async RevokeApiKey(request, context) {
      requireAdminCaller(context);
      const revoked = await keys.revokeApiKey(request.id, context.principal);
      return { id: revoked.id, revoked_at: revoked.revokedAt.toISOString() };
    },
  };
}
