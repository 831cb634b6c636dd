/**
 * API keys in the account settings (spec Authentication 1: "Keys are created in the account
 * settings by a user with the admin role"), on the session host only, for admins:
 *   GET    /api/api-keys         keys, filtered by user_id and/or project_id (never a key value);
 *   GET    /api/api-keys/{id}    one of them (what the creation's Location names);
 *   POST   /api/api-keys         a key for any user, with scopes and an optional project; the value
 *                                is in this response only;
 *   DELETE /api/api-keys/{id}    revokes it: this gateway forgets it at once, the others on the
 *                                api_key.revoked event (within the outbox relay's latency).
 * The lookup service checks the rules (known scopes, an existing active user and project) and the
 * caller's role again.
 */
import { z } from 'zod';
import { AppError } from '@tix/kit';
import { API_KEY_LIMITS, MAX_INT32, presentApiKey, SCOPES, ERROR_MESSAGES } from '@tix/protos';
import { givenFields } from '../../http/validate.js';
import { idField, idParam, integerParam, requiredTextField } from '../../http/schema-fields.js';
import { apiKeySchema } from '../../resources/components.js';
import { EXAMPLES } from '../../resources/examples.js';
import { counted, countedData, json, tagged } from '../../resources/responses.js';
import { z as zod } from '../../resources/zod-openapi.js';
import { operationGroup, type Operation } from '../operation.js';
import { BODY_NOT_OBJECT_MESSAGE } from '../../resources/messages.js';

export const INVALID_API_KEY_ID_MESSAGE = 'Invalid API key id';
export const API_KEY_REVOKED_MESSAGE = 'API key revoked';

const listApiKeysQuery = z.object({
  user_id: integerParam({
    min: 1,
    max: MAX_INT32,
    message: 'user_id must be a positive integer',
    description: "Only this user's keys.",
    example: 3,
  }).optional(),
  project_id: integerParam({
    min: 1,
    max: MAX_INT32,
    message: 'project_id must be a positive integer',
    description: 'Only keys scoped to this project.',
    example: 1,
  }).optional(),
});

const createApiKeyBody = z.object(
  {
    name: requiredTextField('Name', {
      max: API_KEY_LIMITS.name,
      description: 'A label for the key (unique among the user’s unrevoked keys).',
      example: 'Zapier',
    }),
    scopes: z
      .array(z.enum(SCOPES, { error: `Each scope must be one of ${SCOPES.join(', ')}` }), {
        error: (issue) => (issue.input === undefined ? 'Scopes are required' : 'Scopes must be an array'),
      })
      .min(1, 'Give at least one scope')
      .max(SCOPES.length * 4, 'Too many scopes')
      .meta({ description: `Any of ${SCOPES.join(', ')}.`, example: ['tickets:read', 'tickets:write'] }),
    user_id: idField('User ID', { description: 'The user the key acts as.', example: 3 }),
    project_id: idField('Project ID', { description: 'Restricts the key to one project.', example: 1 })
      .nullable()
      .optional(),
  },
  { error: BODY_NOT_OBJECT_MESSAGE },
);

const apiKeyIdParams = z.object({
  id: idParam({ message: INVALID_API_KEY_ID_MESSAGE, description: 'API key id.', example: 12 }),
});

const apiKeyOperation = operationGroup({ hosts: ['app'], project: 'none', tag: 'Account' });

// Admins only (access.role); the scope is null because API keys never reach these operations.
export const API_KEY_OPERATIONS: Operation[] = [
  apiKeyOperation({
    method: 'get',
    path: '/api-keys',
    access: { scope: null, role: 'admin' },
    request: { query: listApiKeysQuery },
    operationId: 'listApiKeys',
    summary: 'List API keys (admin)',
    success: counted('The keys.', 'api_keys', apiKeySchema, EXAMPLES.apiKey),
    errors: [400, 404],
    async handle({ query, services, call }) {
      const listed = await services.lookup.ListApiKeys(
        {
          ...givenFields(query, 'user_id', 'project_id'),
        },
        call,
      );
      return { data: countedData('api_keys', listed.keys.map(presentApiKey)) };
    },
  }),

  apiKeyOperation({
    method: 'post',
    path: '/api-keys',
    access: { scope: null, role: 'admin' },
    request: { body: createApiKeyBody },
    bodyExample: { name: 'Zapier', scopes: ['tickets:read', 'tickets:write'], user_id: 3, project_id: 1 },
    operationId: 'createApiKey',
    summary: 'Create an API key for a user (admin)',
    success: json(
      201,
      'The key, and its value.',
      zod.object({
        api_key: apiKeySchema,
        key: zod.string().meta({ description: 'The key value, shown once.' }),
      }),
      { api_key: EXAMPLES.apiKey, key: EXAMPLES.apiKeyValue },
    ),
    errors: [422],
    async handle({ body, services, call }) {
      const lookup = services.lookup;
      const created = await lookup.CreateApiKey(
        {
          name: body.name,
          scopes: body.scopes,
          user_id: body.user_id,
          ...(body.project_id ? { project_id: body.project_id } : {}),
        },
        call,
      );
      const { key, ...listed } = created;
      return {
        data: { api_key: presentApiKey(listed), key },
        status: 201,
        location: `/api-keys/${created.id}`,
      };
    },
  }),

  apiKeyOperation({
    method: 'get',
    path: '/api-keys/:id',
    access: { scope: null, role: 'admin' },
    request: { params: apiKeyIdParams },
    operationId: 'getApiKey',
    summary: 'Get an API key (admin)',
    success: tagged(200, 'The key.', 'api_key', apiKeySchema, EXAMPLES.apiKey),
    errors: [400, 404],
    async handle({ params, services, call }) {
      // Lookup has no single read of a key; its list (admins only, checked there too) is the source.
      const listed = await services.lookup.ListApiKeys({}, call);
      const found = listed.keys.find((candidate) => candidate.id === params.id);
      if (!found) throw AppError.notFound(ERROR_MESSAGES.apiKeyNotFound);
      return { data: { api_key: presentApiKey(found) }, etag: true };
    },
  }),

  apiKeyOperation({
    method: 'delete',
    path: '/api-keys/:id',
    access: { scope: null, role: 'admin' },
    request: { params: apiKeyIdParams },
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key (admin)',
    success: json(
      200,
      'Confirmation and the revocation time.',
      zod.object({
        message: zod.string(),
        api_key: zod.object({ id: zod.number().int(), revoked_at: zod.string() }),
      }),
      { message: API_KEY_REVOKED_MESSAGE, api_key: { id: 12, revoked_at: '2026-11-25T10:00:00.000Z' } },
    ),
    errors: [400, 404],
    async handle({ params, services, apiKeys, call }) {
      const revoked = await services.lookup.RevokeApiKey({ id: params.id }, call);
      // The other gateways hear api_key.revoked; this one need not wait for it.
      apiKeys.evictKey(revoked.id);
      return {
        data: {
          message: API_KEY_REVOKED_MESSAGE,
          api_key: { id: revoked.id, revoked_at: revoked.revoked_at },
        },
      };
    },
  }),
];
