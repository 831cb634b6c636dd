/**
 * Authenticating a request's API key: format and checksum first (a malformed key never reaches the
 * database), then the stored hash, then revocation and the owner's state. Records the key's last use
 * coarsely, off the answer's path.
 */
import { AppError, type Logger } from '@tix/kit';
import type { Role } from '@tix/protos';
import { hashApiKey, isWellFormedApiKey } from './api-key-format.js';
import type { ApiKeyStore } from './api-key-store.js';

export const INVALID_API_KEY = 'Invalid API key';
export const REVOKED_API_KEY = 'API key has been revoked';
export const INACTIVE_KEY_OWNER = 'API key belongs to an inactive user';
/** last_used_at is refreshed at most this often per key, so hot keys do not write on every request. */
export const LAST_USED_RESOLUTION_MS = 60_000;

export interface AuthenticatedKey {
  keyId: number;
  userId: number;
  role: Role;
  scopes: string[];
  projectId: number | null;
}

export interface ApiKeyAuthenticator {
  /** The principal of a valid key; 401 when it is malformed, unknown, revoked or its owner is inactive. */
  authenticateApiKey(value: string): Promise<AuthenticatedKey>;
}

/** Builds the authenticator over the key store. */
export function createApiKeyAuthenticator(deps: {
  store: Pick<ApiKeyStore, 'findByHash' | 'recordUse'>;
  logger: Logger;
  now?: () => Date;
}): ApiKeyAuthenticator {
  const now = deps.now ?? (() => new Date());
  return {
    async authenticateApiKey(value) {
      if (!isWellFormedApiKey(value)) throw AppError.unauthenticated(INVALID_API_KEY);
      const found = await deps.store.findByHash(hashApiKey(value));
      if (!found) throw AppError.unauthenticated(INVALID_API_KEY);
      const { key, owner } = found;
      if (key.revokedAt) throw AppError.unauthenticated(REVOKED_API_KEY);
      if (!owner.isActive) throw AppError.unauthenticated(INACTIVE_KEY_OWNER);

      const at = now();
      if (!key.lastUsedAt || at.getTime() - key.lastUsedAt.getTime() >= LAST_USED_RESOLUTION_MS) {
        // Not awaited: the caller's answer must not wait for (or fail because of) bookkeeping.
        deps.store
          .recordUse(key.id, at, new Date(at.getTime() - LAST_USED_RESOLUTION_MS))
          .catch((error: unknown) =>
            deps.logger.warn({ err: error, key_id: key.id }, 'could not record API key use'),
          );
      }
      return {
        keyId: key.id,
        userId: owner.id,
        role: owner.role,
        scopes: key.scopes,
        projectId: key.projectId,
      };
    },
  };
}
