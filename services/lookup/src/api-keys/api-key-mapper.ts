/** API keys as lookup.v1 messages (never the value, except in CreatedApiKey; never the hash). */
import type { lookup } from '@tix/protos';
import type { AuthenticatedKey } from './api-key-authentication.js';
import type { ApiKeyRecord } from './api-key-store.js';

/** The ApiKey message of a record (list entries). */
export function toApiKeyMessage(key: ApiKeyRecord): lookup.ApiKey {
  return {
    id: key.id,
    name: key.name,
    prefix: key.prefix,
    scopes: key.scopes,
    ...(key.projectId === null ? {} : { project_id: key.projectId }),
    user_id: key.userId,
    created_at: key.createdAt.toISOString(),
    ...(key.lastUsedAt ? { last_used_at: key.lastUsedAt.toISOString() } : {}),
    ...(key.revokedAt ? { revoked_at: key.revokedAt.toISOString() } : {}),
  };
}

/** The CreatedApiKey message: the record plus the value, shown this once. */
export function toCreatedApiKeyMessage(key: ApiKeyRecord, value: string): lookup.CreatedApiKey {
  return {
    id: key.id,
    key: value,
    scopes: key.scopes,
    ...(key.projectId === null ? {} : { project_id: key.projectId }),
    user_id: key.userId,
    name: key.name,
    created_at: key.createdAt.toISOString(),
    prefix: key.prefix,
  };
}

/** The ApiKeyPrincipal message of an authenticated key. */
export function toPrincipalMessage(principal: AuthenticatedKey): lookup.ApiKeyPrincipal {
  return {
    key_id: principal.keyId,
    user_id: principal.userId,
    role: principal.role,
    scopes: principal.scopes,
    ...(principal.projectId === null ? {} : { project_id: principal.projectId }),
  };
}
