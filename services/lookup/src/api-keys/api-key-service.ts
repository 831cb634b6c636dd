/** API key administration: creating (the only time a value is shown), listing and revoking keys. */
import { actorOf, AppError, FieldErrors, newDomainEvent } from '@tix/kit';
import type { Principal, Scope } from '@tix/protos';
import type { ProjectSelector, ProjectService } from '../projects/project-service.js';
import type { UserSelector, UserService } from '../users/user-service.js';
import { apiKeyDisplayPrefix, generateApiKey, hashApiKey } from './api-key-format.js';
import { checkKeyName, checkScopes } from './api-key-rules.js';
import type { ApiKeyRecord, ApiKeyStore } from './api-key-store.js';
import { ERROR_MESSAGES, quoted } from '@tix/protos';

export const API_KEY_NOT_FOUND = ERROR_MESSAGES.apiKeyNotFound;
/** The assistant acts through the ai service's own calls, never through a key anyone could hold. */
export const SYSTEM_USER_KEY = "Tix AI is the assistant's system user and cannot have API keys";

export interface CreateApiKeyInput {
  /** The owner; undefined when the request named none. */
  user?: UserSelector;
  scopes: readonly string[];
  /** Restricts the key to one project; undefined for an unscoped key. */
  project?: ProjectSelector;
  /** Empty means "key created <date>". */
  name: string;
}

export interface ApiKeyService {
  /**
   * Creates a key for an existing, active user with a non-empty subset of SCOPES, optionally scoped
   * to an existing project (422 naming the field otherwise). Returns the record and the key value,
   * which is never stored and cannot be shown again.
   */
  createApiKey(input: CreateApiKeyInput): Promise<{ key: ApiKeyRecord; value: string }>;
  /** Keys in id order, filtered by owner email and/or project slug (404 when either does not exist). */
  /** Keys of a user and/or a project (named by email/slug or by id); 404 for one that does not exist. */
  listApiKeys(filter: {
    userEmail?: string;
    projectSlug?: string;
    userId?: number;
    projectId?: number;
  }): Promise<ApiKeyRecord[]>;
  /**
   * Revokes a key and emits api_key.revoked with it; revoking again returns the original time and
   * emits nothing. 404 when there is no such key. `caller` is the event's actor (null: the CLI).
   */
  revokeApiKey(id: number, caller?: Principal | null): Promise<{ id: number; revokedAt: Date }>;
  /** True when the user has an unrevoked key with exactly this name. */
  hasUnrevokedKeyNamed(userId: number, name: string): Promise<boolean>;
}

function describeUser(selector: UserSelector): string {
  return 'id' in selector ? `id ${selector.id}` : `email ${quoted(selector.email)}`;
}

function describeProject(selector: ProjectSelector): string {
  return 'id' in selector ? `id ${selector.id}` : `slug ${quoted(selector.slug)}`;
}

/** Builds the key administration use cases. */
export function createApiKeyService(deps: {
  store: ApiKeyStore;
  users: UserService;
  projects: ProjectService;
  now?: () => Date;
}): ApiKeyService {
  const { store, users, projects } = deps;
  const now = deps.now ?? (() => new Date());

  return {
    async createApiKey(input) {
      const errors = new FieldErrors();
      const scopes: Scope[] = checkScopes(errors, input.scopes);
      const name = checkKeyName(errors, input.name, now());

      let userId: number | undefined;
      if (!input.user) errors.add('user', 'The key owner (user id or email) is required');
      else {
        const user = await users.findUser(input.user);
        if (!user) errors.add('user', `No user with ${describeUser(input.user)}`);
        else if (user.isSystem) errors.add('user', SYSTEM_USER_KEY);
        else if (!user.isActive) errors.add('user', `User ${user.email} is inactive; keys act as their user`);
        else userId = user.id;
      }

      let projectId: number | null = null;
      if (input.project) {
        const project = await projects.findProject(input.project);
        if (!project) errors.add('project', `No project with ${describeProject(input.project)}`);
        else projectId = project.id;
      }
      errors.throwIfAny();

      const value = generateApiKey();
      const key = await store.create({
        name,
        prefix: apiKeyDisplayPrefix(value),
        keyHash: hashApiKey(value),
        scopes,
        projectId,
        userId: userId!,
      });
      return { key, value };
    },

    async listApiKeys(filter) {
      const where: { userId?: number; projectId?: number } = {};
      if (filter.userEmail !== undefined || filter.userId !== undefined) {
        const user = await users.findUser(
          filter.userId !== undefined ? { id: filter.userId } : { email: filter.userEmail! },
        );
        if (!user)
          throw AppError.notFound(`User not found: ${quoted(filter.userEmail ?? String(filter.userId))}`);
        where.userId = user.id;
      }
      if (filter.projectSlug !== undefined || filter.projectId !== undefined) {
        const project = await projects.findProject(
          filter.projectId !== undefined ? { id: filter.projectId } : { slug: filter.projectSlug! },
        );
        if (!project) {
          throw AppError.notFound(
            `Project not found: ${quoted(filter.projectSlug ?? String(filter.projectId))}`,
          );
        }
        where.projectId = project.id;
      }
      return store.list(where);
    },

    async revokeApiKey(id, caller = null) {
      const result = await store.revoke(id, now(), (revokedAt) =>
        newDomainEvent(
          'api_key.revoked',
          { id, revoked_at: revokedAt.toISOString() },
          { source: 'lookup', occurredAt: revokedAt, actor: actorOf(caller), changes: {} },
        ),
      );
      if (!result) throw AppError.notFound(API_KEY_NOT_FOUND);
      return { id, revokedAt: result.revokedAt };
    },

    async hasUnrevokedKeyNamed(userId, name) {
      return (await store.findUnrevokedByName(userId, name)) !== null;
    },
  };
}
