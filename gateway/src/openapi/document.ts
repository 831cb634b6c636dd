/**
 * Builds the OpenAPI 3.1 document from the operation declarations (routes/operation.ts): request
 * parameters and bodies from the zod schemas the routes validate with, responses as declared
 * (resources/responses.ts, resources/components.ts), the spec's common errors and headers, and the
 * security each operation needs. Built once per process.
 *
 * Path and query parameters travel as text and the schemas parse that text (`"42"` -> 42); the
 * document shows the value they stand for (an integer parameter, not a string with a digit pattern),
 * which is what clients and generators expect.
 */
import {
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  type ResponseConfig,
  type RouteConfig,
} from '@asteasolutions/zod-to-openapi';
import { INTERNAL_ERROR_MESSAGE } from '@tix/kit';
import { ERROR_MESSAGES } from '@tix/protos';
import { projectContextQuery } from '../middleware/project-context.js';
import { OPERATIONS } from '../routes/index.js';
import { TAGS, type OperationDescription } from '../routes/operation.js';
import {
  COMPONENT_SCHEMAS,
  successEnvelope,
  WEBHOOK_PAYLOAD_EVENTS,
  WEBHOOK_PAYLOAD_SCHEMAS,
  webhookPayloadName,
} from '../resources/components.js';
import { OPERATION_DESCRIPTIONS } from '../resources/descriptions/index.js';
import { z } from '../resources/zod-openapi.js';

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;

/** Where the two hosts are; the document names them as server variables with these defaults. */
export interface OpenApiServers {
  apiUrl: string;
  appUrl: string;
}

export const DEFAULT_SERVERS: OpenApiServers = {
  apiUrl: 'http://127.0.0.1:8080',
  appUrl: 'http://127.0.0.1:8081',
};

export const SECURITY_SCHEMES = {
  ApiKeyBearer: 'ApiKeyBearer',
  ApiKeyHeader: 'ApiKeyHeader',
  SessionCookie: 'SessionCookie',
  CsrfToken: 'CsrfToken',
} as const;

// ---- errors --------------------------------------------------------------------------------------

interface ErrorResponse {
  name: string;
  description: string;
  message: string;
  validationErrors?: Record<string, unknown>;
}

/** One reusable response per error status, each with an example of its envelope. */
const ERROR_RESPONSES: Record<number, ErrorResponse> = {
  400: {
    name: 'BadRequest',
    description:
      'Malformed JSON, an invalid path id (`Invalid ticket id`), invalid query parameters, or no project ' +
      'context (`Project ID is required.`).',
    message: 'Invalid ticket id',
  },
  401: {
    name: 'Unauthorized',
    description:
      'Missing or invalid API key or session. A key sent to the session host: `API key authentication is only available on the API subdomain`.',
    message: 'Invalid API key',
  },
  402: {
    name: 'PaymentRequired',
    description:
      'Free API allowance exhausted or monthly call limit reached; `validation_errors` may hold scalar values.',
    message: 'Monthly API call limit reached',
    validationErrors: { limit: 10000, used: 10000 },
  },
  403: {
    name: 'Forbidden',
    description:
      "The key lacks the operation's scope, the CSRF token is missing or wrong, or the user may not do this.",
    message: 'API key lacks the required scope: tickets:write',
  },
  404: {
    name: 'NotFound',
    description: "The resource does not exist or is outside the key's project scope.",
    message: ERROR_MESSAGES.ticketNotFound,
  },
  409: {
    name: 'Conflict',
    description:
      'The ticket was modified since `version` (`Ticket was modified by another user`): re-fetch, re-apply, retry. ' +
      'Also: an Idempotency-Key reused with a different payload; a state that does not allow the change.',
    message: ERROR_MESSAGES.ticketModified,
  },
  412: {
    name: 'PreconditionFailed',
    description:
      'If-Match names another version of the ticket than the current one: nothing was written; GET it (its ETag), re-apply, retry.',
    message: 'Ticket has changed since the ETag in If-Match',
  },
  413: {
    name: 'PayloadTooLarge',
    description: 'The request body is larger than the limit.',
    message: 'Request body too large (limit 1048576 bytes)',
  },
  415: {
    name: 'UnsupportedMediaType',
    description: 'A body that is not `application/json`.',
    message: 'Content-Type must be application/json',
  },
  422: {
    name: 'ValidationFailed',
    description: 'Validation failed; `validation_errors` maps each field to its messages.',
    message: 'Validation failed',
    validationErrors: { title: ['Title cannot be empty'] },
  },
  410: {
    name: 'Gone',
    description:
      'The cursor points before what retention keeps (default 90 days): start again, from GET /activity ' +
      '(`Cursor expired; reload /activity`) or, for the event stream, without `after`.',
    message: 'Cursor expired; reload /activity',
  },
  429: {
    name: 'TooManyRequests',
    description:
      'Rate limit exceeded: wait `Retry-After` seconds (otherwise back off exponentially, with jitter).',
    message: 'Too many requests',
  },
  500: {
    name: 'InternalError',
    description: 'An unexpected failure; the details are logged under the correlation id.',
    message: INTERNAL_ERROR_MESSAGE,
  },
  503: {
    name: 'ServiceUnavailable',
    description: 'A service behind the gateway is unavailable; retry later.',
    message: 'Service unavailable: tickets',
  },
  504: {
    name: 'GatewayTimeout',
    description:
      'A service behind the gateway did not answer in time (a model server composing a reply); retry later.',
    message: 'Service did not answer in time',
  },
};

/** Every operation can answer these (spec "Endpoints": 401, 402, 403, 429, 500; and 503). */
const COMMON_API_ERRORS = [401, 402, 403, 429, 500, 503];
/** Session operations: no key quotas; CSRF refusals are 403. */
const COMMON_SESSION_ERRORS = [403, 429, 500, 503];
const COMMON_PUBLIC_ERRORS = [429, 500];

/** The error statuses an operation documents: its own, the common ones, what its inputs imply. */
export function errorStatusesOf(operation: OperationDescription): number[] {
  const statuses = new Set(operation.errors);
  if (operation.ifMatch) {
    statuses.add(400);
    statuses.add(412);
  }
  const { access } = operation;
  if (access === 'public') {
    for (const status of COMMON_PUBLIC_ERRORS) statuses.add(status);
  } else if ('session' in access) {
    for (const status of COMMON_SESSION_ERRORS) statuses.add(status);
    if (access.session === 'signed_in') statuses.add(401);
  } else {
    // Served on the session host only: a session, not a key (no quotas), and 401 when not signed in.
    const common = operation.hosts.includes('api') ? COMMON_API_ERRORS : [...COMMON_SESSION_ERRORS, 401];
    for (const status of common) statuses.add(status);
  }
  if (operation.request?.params || operation.request?.query) statuses.add(400);
  if (operation.project !== 'none') {
    statuses.add(400);
    statuses.add(404);
  }
  if (operation.request?.body) {
    for (const status of [400, 413, 415, 422]) statuses.add(status);
  }
  if (operation.upload) {
    for (const status of [400, 422]) statuses.add(status);
  }
  return [...statuses].sort((a, b) => a - b);
}

// ---- headers and parameters ----------------------------------------------------------------------

/** A response header of the document: its type and description, and its example when it has one. */
function header(type: 'string' | 'integer', description: string, example?: string | number) {
  return { description, schema: { type }, ...(example === undefined ? {} : { example }) };
}

const HEADERS = {
  'X-Correlation-ID': header(
    'string',
    "The request's identifier (yours when you sent a well-formed one); quote it when reporting.",
  ),
  'X-RateLimit-Limit': header('integer', 'Requests allowed in the window.'),
  'X-RateLimit-Remaining': header('integer', 'Requests left in the window.'),
  'X-RateLimit-Reset': header('integer', 'When the window frees up (Unix seconds).'),
  'Retry-After': header('integer', 'Seconds to wait before retrying.'),
  'X-Idempotency-Replay': {
    description: '`true` when this is the stored answer to an earlier request with the same Idempotency-Key.',
    schema: { type: 'string' as const, enum: ['true'] },
  },
  ETag: header(
    'string',
    "The answer's tag: strong for one resource (send it back in If-None-Match to GET it only when it " +
      "changed, or in If-Match on a ticket's write to make it conditional), weak (`W/`) for a poll's " +
      'position (send it back in If-None-Match with the next poll).',
    '"t42.3"',
  ),
  Location: header(
    'string',
    'The path of the created resource on this host, which answers GET with it (for a resource of a ' +
      "project, in the request's project context; after adding a status, the project).",
    '/v1/tickets/42',
  ),
  Link: header(
    'string',
    'The neighbouring pages (RFC 8288): `rel="next"`, `"prev"`, `"first"` and `"last"` with pages, `"next"` ' +
      'and `"first"` in cursor mode. Each is this request with only `page` or `cursor` changed; no `next`: the last page.',
    '</v1/tickets?per_page=50&cursor=eyJmIjoi...>; rel="next", </v1/tickets?per_page=50&cursor=>; rel="first"',
  ),
  'X-Poll-Interval': header('integer', 'Seconds to wait before polling again.', 10),
};

type HeaderName = keyof typeof HEADERS;
const headerRef = (name: HeaderName) => ({ $ref: `#/components/headers/${name}` });

/** Headers on every response (spec: correlation id and rate-limit headers on every response). */
function responseHeaders(extra: HeaderName[] = []) {
  const names: HeaderName[] = [
    'X-Correlation-ID',
    'X-RateLimit-Limit',
    'X-RateLimit-Remaining',
    'X-RateLimit-Reset',
    ...extra,
  ];
  return Object.fromEntries(names.map((name) => [name, headerRef(name)]));
}

const PARAMETERS = {
  CorrelationId: {
    name: 'X-Correlation-ID',
    in: 'header' as const,
    required: false,
    description:
      'Your identifier for the request (1 to 128 characters of letters, digits, `-_.:`); echoed on the response. ' +
      'A malformed one is replaced by a new UUID.',
    schema: { type: 'string' as const, maxLength: 128 },
  },
  IdempotencyKey: {
    name: 'Idempotency-Key',
    in: 'header' as const,
    required: false,
    description:
      'A unique value per create operation. Repeating the POST with the same key and payload within 1 hour returns ' +
      'the stored answer (with `X-Idempotency-Replay: true`) and creates nothing; the same key with another payload is 409.',
    schema: { type: 'string' as const, maxLength: 255 },
    example: '6f1c2e1a-9d7b-4b0e-9d43-3b9f4a1f2c55',
  },
  IfNoneMatch: {
    name: 'If-None-Match',
    in: 'header' as const,
    required: false,
    description:
      'The ETag of your previous answer (or poll): when nothing changed since, the answer is 304 without a body.',
    schema: { type: 'string' as const },
    example: '"t42.3"',
  },
  IfMatch: {
    name: 'If-Match',
    in: 'header' as const,
    required: false,
    description:
      "The ticket's ETag as you last read it: the write happens only if the ticket is still at that version, " +
      'else 412 and nothing is written (`*`: any version). Naming several versions is 400.',
    schema: { type: 'string' as const },
    example: '"t42.3"',
  },
};

const parameterRef = (name: keyof typeof PARAMETERS) => ({ $ref: `#/components/parameters/${name}` });

// ---- security ------------------------------------------------------------------------------------

/** The session host checks the CSRF token on these. */
const needsCsrf = (operation: OperationDescription) => operation.method !== 'get';

function securityOf(operation: OperationDescription): Record<string, string[]>[] {
  const { access } = operation;
  if (access === 'public') return [];
  if ('session' in access) {
    if (needsCsrf(operation)) {
      return [{ [SECURITY_SCHEMES.SessionCookie]: [], [SECURITY_SCHEMES.CsrfToken]: [] }];
    }
    // Without a session the call still works (it starts one), unless a user must be signed in.
    return access.session === 'signed_in'
      ? [{ [SECURITY_SCHEMES.SessionCookie]: [] }]
      : [{}, { [SECURITY_SCHEMES.SessionCookie]: [] }];
  }
  const requirements: Record<string, string[]>[] = [];
  if (operation.hosts.includes('api')) {
    // OpenAPI 3.1 lets non-OAuth schemes list the roles (here: scopes) an operation needs.
    const scopes = access.scope === null ? [] : [access.scope];
    requirements.push(
      { [SECURITY_SCHEMES.ApiKeyBearer]: scopes },
      { [SECURITY_SCHEMES.ApiKeyHeader]: scopes },
    );
  }
  if (operation.hosts.includes('app')) {
    const roles = [access.role];
    requirements.push(
      needsCsrf(operation)
        ? { [SECURITY_SCHEMES.SessionCookie]: roles, [SECURITY_SCHEMES.CsrfToken]: [] }
        : { [SECURITY_SCHEMES.SessionCookie]: roles },
    );
  }
  return requirements;
}

function accessDescription(operation: OperationDescription): string {
  const { access } = operation;
  if (access === 'public') return 'No credentials.';
  if ('session' in access) {
    if (needsCsrf(operation)) return 'Session cookie and `X-CSRF-Token` (from GET /api/csrf-token).';
    return access.session === 'signed_in' ? 'A signed-in session.' : 'Session cookie optional.';
  }
  const parts: string[] = [];
  if (operation.hosts.includes('api')) {
    parts.push(
      access.scope === null
        ? 'Any valid API key.'
        : `Scope: \`${access.scope}\` (the key's owner's role must allow it).`,
    );
  }
  if (operation.hosts.includes('app')) {
    const csrf = needsCsrf(operation) ? ' and `X-CSRF-Token`' : '';
    parts.push(`Session host: a signed-in user of role \`${access.role}\` or higher${csrf}.`);
  }
  return parts.join(' ');
}

// ---- parameters as the values they stand for ------------------------------------------------------

interface WireOverlay {
  type: 'integer';
  minimum?: number;
  maximum?: number;
}

/** JSON Schema keywords read from zod's own conversion. */
interface JsonSchemaFacts {
  type?: unknown;
  minimum?: unknown;
  maximum?: unknown;
  pattern?: unknown;
  default?: unknown;
}

const onlyDigits = (pattern: unknown): boolean => {
  if (typeof pattern !== 'string') return false;
  const regex = new RegExp(pattern);
  return regex.test('1') && !regex.test('-1') && !regex.test('1.5') && !regex.test('a');
};

/** 0 or 1 for a digits-only pattern (`^[1-9][0-9]*$` refuses 0); undefined otherwise. */
function smallestDigitsAccepted(pattern: unknown): number | undefined {
  if (!onlyDigits(pattern)) return undefined;
  return new RegExp(pattern as string).test('0') ? 0 : 1;
}

/**
 * For a text parameter its schema parses into an integer, the integer it stands for (zod's output
 * side: bounds included). Undefined for every other parameter.
 */
export function integerOverlay(field: z.ZodType): WireOverlay | undefined {
  const input = z.toJSONSchema(field, { io: 'input', unrepresentable: 'any' }) as JsonSchemaFacts;
  const output = z.toJSONSchema(field, { io: 'output', unrepresentable: 'any' }) as JsonSchemaFacts;
  if (input.type !== 'string' || (output.type !== 'integer' && output.type !== 'number')) return undefined;
  if (output.type === 'number' && !onlyDigits(input.pattern)) return undefined;
  const minimum = typeof output.minimum === 'number' ? output.minimum : smallestDigitsAccepted(input.pattern);
  return {
    type: 'integer',
    ...(minimum === undefined ? {} : { minimum }),
    ...(typeof output.maximum === 'number' ? { maximum: output.maximum } : {}),
  };
}

type ParameterLocation = 'path' | 'query';

/** Overlays per `${in}:${name}` for the path and query parameters of `operation`. */
function parameterOverlays(
  operation: OperationDescription,
  query: z.ZodObject | undefined,
): Map<string, { overlay?: WireOverlay; field: z.ZodType }> {
  const overlays = new Map<string, { overlay?: WireOverlay; field: z.ZodType }>();
  const add = (location: ParameterLocation, shape: Record<string, z.ZodType>) => {
    for (const [name, field] of Object.entries(shape)) {
      const overlay = integerOverlay(field);
      overlays.set(`${location}:${name}`, overlay ? { overlay, field } : { field });
    }
  };
  const params = operation.request?.params;
  if (params instanceof z.ZodObject) add('path', params.shape);
  if (query) add('query', query.shape);
  return overlays;
}

/** The query object documented for `operation`: its own plus the project-context parameters. */
function queryOf(operation: OperationDescription): z.ZodObject | undefined {
  const own = operation.request?.query;
  if (own !== undefined && !(own instanceof z.ZodObject)) {
    throw new Error(`${operation.operationId}: a query schema must be a zod object to be documented`);
  }
  if (operation.project === 'none') return own;
  return z.object({ ...(own?.shape ?? {}), ...projectContextQuery.shape });
}

// ---- responses -----------------------------------------------------------------------------------

const JSON_TYPE = 'application/json';

function successResponses(operation: OperationDescription): Record<string, ResponseConfig> {
  const success = operation.success;
  const postOnApi = operation.hosts.includes('api') && operation.method === 'post';
  switch (success.kind) {
    case 'json': {
      // A poll's answers (http/polling.ts) name where they reach and when to poll again.
      const headers = success.polled
        ? {
            ...responseHeaders(['ETag', 'X-Poll-Interval']),
            'Cache-Control': {
              description: '`private, no-cache`: kept by your client, revalidated on every poll.',
              schema: { type: 'string' as const },
            },
          }
        : success.tagged
          ? {
              ...responseHeaders([
                'ETag',
                ...(success.status === 201 ? (['Location'] as const) : []),
                ...(postOnApi ? (['X-Idempotency-Replay'] as const) : []),
              ]),
              'Cache-Control': {
                description: '`private, no-cache`: kept by your client, revalidated before each use.',
                schema: { type: 'string' as const },
              },
            }
          : responseHeaders([
              // Every 201 names what it created (routes/operation.ts AnswerEffects `location`), tagged or not.
              ...(success.status === 201 ? (['Location'] as const) : []),
              ...(postOnApi ? (['X-Idempotency-Replay'] as const) : []),
              ...(success.linked ? (['Link'] as const) : []),
            ]);
      return {
        [success.status]: {
          description: success.description,
          headers,
          content: {
            [JSON_TYPE]: {
              schema: successEnvelope(success.data),
              example: { ok: true, data: success.example },
            },
          },
        },
        ...(success.polled || (success.tagged && operation.method === 'get')
          ? { 304: { description: 'Nothing new: If-None-Match names this answer. No body.', headers } }
          : {}),
      };
    }
    case 'json_download':
      return {
        200: {
          description: success.description,
          headers: {
            ...responseHeaders(),
            'Content-Disposition': {
              description: '`attachment` with the file name (`filename` and `filename*`).',
              schema: { type: 'string' },
              example: `attachment; filename="${success.filename}"; filename*=UTF-8''${success.filename}`,
            },
            'Cache-Control': { description: '`no-store`.', schema: { type: 'string' } },
          },
          content: {
            [JSON_TYPE]: {
              schema: successEnvelope(success.data),
              example: { ok: true, data: success.example },
            },
          },
        },
      };
    case 'file_download':
      return {
        200: {
          description: 'The file itself, with its MIME type.',
          headers: {
            ...responseHeaders(),
            'Content-Type': { description: "The file's MIME type.", schema: { type: 'string' } },
            'Content-Disposition': {
              description: "`attachment` with `filename` and `filename*=UTF-8''<name>`.",
              schema: { type: 'string' },
              example: `attachment; filename="error-log.txt"; filename*=UTF-8''error-log.txt`,
            },
            'Content-Length': { description: 'Size in bytes.', schema: { type: 'integer' } },
            'Cache-Control': { description: '`private, no-cache`.', schema: { type: 'string' } },
          },
          content: {
            '*/*': { schema: { type: 'string', contentMediaType: 'application/octet-stream' } },
          },
        },
      };
    case 'openapi_document':
      return {
        200: {
          description: 'This document.',
          headers: responseHeaders(),
          content: { [JSON_TYPE]: { schema: { type: 'object', description: 'An OpenAPI 3.1 document.' } } },
        },
      };
    case 'docs_page':
      return {
        200: {
          description: 'The reference page (Swagger UI).',
          headers: responseHeaders(),
          content: { 'text/html': { schema: { type: 'string' } } },
        },
      };
    case 'docs_asset':
      return {
        200: {
          description: 'A script, style sheet or icon of the reference page.',
          headers: responseHeaders(),
          content: {
            'text/javascript': { schema: { type: 'string' } },
            'text/css': { schema: { type: 'string' } },
            'image/png': { schema: { type: 'string', contentMediaType: 'image/png' } },
          },
        },
      };
  }
}

function errorResponses(operation: OperationDescription): Record<string, { $ref: string }> {
  return Object.fromEntries(
    errorStatusesOf(operation).map((status) => {
      const response = ERROR_RESPONSES[status];
      if (!response) throw new Error(`${operation.operationId}: no error response for ${status}`);
      return [String(status), { $ref: `#/components/responses/${response.name}` }];
    }),
  );
}

// ---- routes --------------------------------------------------------------------------------------

/** `/tickets/:id` -> `/tickets/{id}`. */
export function openApiPath(expressPath: string): string {
  return expressPath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

function routeOf(
  operation: OperationDescription,
  servers: OpenApiServers,
): { route: RouteConfig; overlays: ReturnType<typeof parameterOverlays> } {
  if (operation.hosts.length === 0) throw new Error(`${operation.operationId}: served on no host`);
  const query = queryOf(operation);
  const body = operation.request?.body;
  if (body && operation.bodyExample === undefined) {
    throw new Error(`${operation.operationId}: every JSON body needs an example`);
  }
  const params = operation.request?.params;
  if (params !== undefined && !(params instanceof z.ZodObject)) {
    throw new Error(`${operation.operationId}: path parameters must be a zod object to be documented`);
  }
  const headerParameters = [parameterRef('CorrelationId')];
  // Both hosts honour Idempotency-Key on POST; the session host's own POSTs (sign-in, sign-out) do not.
  if (operation.hosts.includes('api') && operation.method === 'post') {
    headerParameters.push(parameterRef('IdempotencyKey'));
  }
  const { success } = operation;
  if (success.kind === 'json' && (success.polled || (success.tagged && operation.method === 'get'))) {
    headerParameters.push(parameterRef('IfNoneMatch'));
  }
  if (operation.ifMatch) headerParameters.push(parameterRef('IfMatch'));

  const route: RouteConfig = {
    method: operation.method,
    path: openApiPath(operation.path),
    operationId: operation.operationId,
    tags: [operation.tag],
    summary: operation.summary,
    description: [OPERATION_DESCRIPTIONS[operation.operationId], accessDescription(operation)]
      .filter(Boolean)
      .join('\n\n'),
    security: securityOf(operation),
    parameters: headerParameters,
    request: {
      ...(params ? { params } : {}),
      ...(query ? { query } : {}),
      ...(body
        ? {
            body: {
              required: true,
              content: { [JSON_TYPE]: { schema: body, example: operation.bodyExample } },
            },
          }
        : {}),
      ...(operation.upload
        ? {
            body: {
              required: true,
              content: {
                'multipart/form-data': {
                  schema: {
                    type: 'object',
                    required: [operation.upload.field],
                    properties: {
                      [operation.upload.field]: {
                        type: 'string',
                        format: 'binary',
                        contentMediaType: 'application/octet-stream',
                        description: 'The file (exactly one).',
                      },
                    },
                  },
                },
              },
            },
          }
        : {}),
    },
    responses: { ...successResponses(operation), ...errorResponses(operation) },
  };
  // The document's servers are the API host's; an operation served elsewhere names its servers.
  if (operation.hosts.includes('app')) {
    route.servers = [
      ...(operation.hosts.includes('api') ? [apiServer(servers)] : []),
      {
        url: '{app_url}/api',
        // The variable has no description: swagger-parser 13's 3.1 schema misspells that field.
        description: 'The session host; app_url is its origin',
        variables: { app_url: { default: servers.appUrl } },
      },
    ];
  }
  return { route, overlays: parameterOverlays(operation, query) };
}

// ---- the document --------------------------------------------------------------------------------

function apiServer(servers: OpenApiServers) {
  return {
    url: '{api_url}/v1',
    description: 'The API host (API keys); api_url is its origin',
    variables: { api_url: { default: servers.apiUrl } },
  };
}

/**
 * The ways to authenticate, by SECURITY_SCHEMES name: an API key on the API host, the session and
 * its CSRF token on the app host.
 */
const SECURITY_SCHEME_COMPONENTS = {
  [SECURITY_SCHEMES.ApiKeyBearer]: {
    type: 'http' as const,
    scheme: 'bearer',
    bearerFormat: 'API key',
    description:
      '`Authorization: Bearer <API key>`, on the API host only. Keys carry scopes: `tickets:read`, `tickets:write`, ' +
      '`tickets:delete`, `comments:read`, `comments:write` (the spec), and `customers:read` / `customers:write` ' +
      '(customers and organizations, additive); each operation names the one it needs, and a key never exceeds ' +
      "its owner's role.",
  },
  [SECURITY_SCHEMES.ApiKeyHeader]: {
    type: 'apiKey' as const,
    in: 'header' as const,
    name: 'X-API-Key',
    description: 'The same API key in `X-API-Key` (when both are sent, the Bearer token wins).',
  },
  [SECURITY_SCHEMES.SessionCookie]: {
    type: 'apiKey' as const,
    in: 'cookie' as const,
    name: 'tix_session',
    description: 'The browser session on the app host (HttpOnly, SameSite=Lax).',
  },
  [SECURITY_SCHEMES.CsrfToken]: {
    type: 'apiKey' as const,
    in: 'header' as const,
    name: 'X-CSRF-Token',
    description:
      'The CSRF token of the session (GET /api/csrf-token), required on POST, PUT, PATCH and DELETE.',
  },
};

/** Builds the document of `operations` (pure; see openApiDocument for the per-process copy). */
export function buildOpenApiDocument(
  operations: readonly OperationDescription[] = OPERATIONS,
  servers: OpenApiServers = DEFAULT_SERVERS,
): OpenApiDocument {
  const registry = new OpenAPIRegistry();
  for (const [name, schema] of Object.entries(COMPONENT_SCHEMAS)) registry.register(name, schema);
  for (const [name, scheme] of Object.entries(SECURITY_SCHEME_COMPONENTS)) {
    registry.registerComponent('securitySchemes', name, scheme);
  }
  for (const [name, header] of Object.entries(HEADERS)) registry.registerComponent('headers', name, header);
  for (const [name, parameter] of Object.entries(PARAMETERS)) {
    registry.registerComponent('parameters', name, parameter);
  }
  for (const [status, response] of Object.entries(ERROR_RESPONSES)) {
    const error: Record<string, unknown> = { code: Number(status), message: response.message };
    if (response.validationErrors) error.validation_errors = response.validationErrors;
    registry.registerComponent('responses', response.name, {
      description: response.description,
      headers: responseHeaders(status === '429' ? ['Retry-After'] : []),
      content: {
        [JSON_TYPE]: {
          schema: { $ref: '#/components/schemas/ErrorEnvelope' },
          example: { ok: false, error },
        },
      },
    });
  }

  const overlaysByOperation = new Map<string, ReturnType<typeof parameterOverlays>>();
  for (const operation of operations) {
    const { route, overlays } = routeOf(operation, servers);
    registry.registerPath(route);
    overlaysByOperation.set(operation.operationId, overlays);
  }

  registerWebhookPayloads(registry);

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: 'Tix ticketing API',
      version: '1.0.0',
      description: API_DESCRIPTION,
    },
    servers: [apiServer(servers)],
    security: [{ [SECURITY_SCHEMES.ApiKeyBearer]: [] }, { [SECURITY_SCHEMES.ApiKeyHeader]: [] }],
    tags: TAGS.map((tag) => ({ ...tag })),
  });
  applyParameterOverlays(document, overlaysByOperation);
  return document;
}

// ---- webhooks (what Tix sends to subscribers) ----------------------------------------------------

/** The headers of every delivery (spec "Delivery headers", plus the Standard Webhooks triplet). */
const deliveryHeadersSchema = z.object({
  'X-Webhook-Signature': z.string().meta({
    description:
      'Lowercase hex HMAC-SHA256 of the raw body keyed with the current secret (after a rotation: the new one).',
    example: '3502fbe054b0c578881173ed152ce0a7761ceb5d6d8359ae8a4be198a2e641cd',
  }),
  'X-Webhook-Event': z.string().meta({ description: 'The event type.', example: 'ticket.created' }),
  'webhook-id': z.string().meta({
    description: 'The event id: the same on every retry and redelivery; deduplicate on it.',
    example: '5d0c3c9e-2d4e-4f0e-8d83-0d1c8f3b7a10',
  }),
  'webhook-timestamp': z
    .string()
    .meta({ description: "The attempt's time (Unix seconds).", example: '1741944413' }),
  'webhook-signature': z.string().meta({
    description:
      'Standard Webhooks: space-separated `v1,<base64 HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>">`, ' +
      'one per secret that signs (two during a rotation overlap, the new one first). Accept the delivery when any matches.',
    example: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
  }),
});

/**
 * One `webhooks` entry per event a subscriber may receive, each with its payload schema (so a
 * generated client has a type per event): what Tix POSTs to the subscription's URL.
 */
function registerWebhookPayloads(registry: OpenAPIRegistry): void {
  for (const eventType of WEBHOOK_PAYLOAD_EVENTS) {
    registry.registerWebhook({
      method: 'post',
      path: eventType,
      operationId: `webhook:${eventType}`,
      tags: ['Webhooks'],
      summary:
        eventType === 'ping'
          ? 'A test delivery (POST /webhooks/{id}/ping)'
          : `A \`${eventType}\` delivery to a subscribed URL`,
      description:
        'Sent as an HTTP POST to the subscription `url`, signed as the headers say. Answer 2xx within 10 seconds; ' +
        'anything else is retried (3 attempts in all). Ignore unknown fields.',
      request: {
        headers: deliveryHeadersSchema,
        body: {
          required: true,
          content: { [JSON_TYPE]: { schema: WEBHOOK_PAYLOAD_SCHEMAS[webhookPayloadName(eventType)]! } },
        },
      },
      responses: { 200: { description: 'Any 2xx status acknowledges the delivery.' } },
      security: [],
    });
  }
}

function applyParameterOverlays(
  document: OpenApiDocument,
  overlaysByOperation: Map<string, ReturnType<typeof parameterOverlays>>,
): void {
  for (const pathItem of Object.values(document.paths ?? {})) {
    for (const method of ['get', 'put', 'post', 'delete', 'patch'] as const) {
      const operation = pathItem[method];
      if (!operation?.operationId) continue;
      const overlays = overlaysByOperation.get(operation.operationId);
      for (const parameter of operation.parameters ?? []) {
        if ('$ref' in parameter) continue;
        const entry = overlays?.get(`${parameter.in}:${parameter.name}`);
        if (!entry || !parameter.schema || '$ref' in parameter.schema) continue;
        const schema = parameter.schema;
        if (entry.overlay) {
          // The digit pattern described the text; the integer bounds say the same, more usefully.
          delete schema.pattern;
          Object.assign(schema, entry.overlay);
        } else if (
          schema.type === 'string' &&
          schema.default !== undefined &&
          typeof schema.default !== 'string'
        ) {
          // A text parameter whose schema defaults to the parsed value (include_internal: true).
          schema.default = String(schema.default);
        }
      }
    }
  }
}

const API_DESCRIPTION = [
  'Projects, tickets, comments, attachments and webhooks. Every response is a JSON envelope ',
  '(`{ ok: true, data }` or `{ ok: false, error: { code, message, validation_errors? } }`) and carries ',
  '`X-Correlation-ID`, except the attachment download (raw bytes) and this document (plain JSON).',
  '\n\n',
  'Integrations use the **API host** (`{api_url}/v1`) with an API key (`Authorization: Bearer <key>`). ',
  'Browsers use the **session host** (`{app_url}/api`) with a cookie session and `X-CSRF-Token`. ',
  'Project-bound operations take the project from the key scope, else `project_id`, else `project` (slug); ',
  'none gives 400 `Project ID is required.`',
  '\n\n',
  'Clients should ignore unknown properties and tolerate new enum values (statuses, priorities, event types).',
].join('');

let built: OpenApiDocument | undefined;
let serialized: string | undefined;

/** The document of this process (built on first use, then kept). */
export function openApiDocument(): OpenApiDocument {
  built ??= buildOpenApiDocument();
  return built;
}

/** The document as JSON text, serialized once. */
export function openApiDocumentJson(): string {
  serialized ??= JSON.stringify(openApiDocument());
  return serialized;
}
