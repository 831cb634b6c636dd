/**
 * The OpenAPI document: a valid OpenAPI 3.1 description (swagger-parser), complete against the
 * spec's endpoint tables, with the spec's security, headers and errors, and examples that the real
 * validation accepts and that match the documented response shapes.
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { expect } from 'chai';
import type { OpenAPIV3_1 } from 'openapi-types';
import { z } from 'zod';
import { ROLES, SCOPES } from '@tix/protos';
import { COMPONENT_SCHEMAS, successEnvelope } from '../../src/resources/components.js';
import {
  buildOpenApiDocument,
  errorStatusesOf,
  integerOverlay,
  openApiPath,
} from '../../src/openapi/document.js';
import { EXAMPLES } from '../../src/resources/examples.js';
import { OPERATIONS } from '../../src/routes/index.js';
import { idParam, integerParam } from '../../src/http/schema-fields.js';

type Document = OpenAPIV3_1.Document;
type Operation = OpenAPIV3_1.OperationObject;

/** The spec's endpoint tables (API host, relative to /v1) and the session endpoints the gateway serves. */
const SPEC_API_ENDPOINTS = [
  'GET /tickets',
  'POST /tickets',
  'GET /tickets/{id}',
  'PUT /tickets/{id}',
  'DELETE /tickets/{id}',
  'PATCH /tickets/{id}/status',
  'POST /tickets/bulk-update',
  'GET /board',
  // The spec names the ticket id of the comment list `ticketId`; the gateway's path calls it `id`.
  'GET /tickets/{id}/comments',
  'POST /tickets/{id}/comments',
  'GET /comments/{id}',
  'PUT /comments/{id}',
  'DELETE /comments/{id}',
  'GET /tickets/{id}/attachments',
  'POST /tickets/{id}/attachments',
  'GET /attachments/{id}/download',
  'DELETE /attachments/{id}',
  'GET /webhooks',
  'POST /webhooks',
  'DELETE /webhooks/{id}',
  'GET /projects',
  'GET /ticket-types',
  'GET /users',
];
const SPEC_SCOPES: Record<string, string | null> = {
  'GET /tickets': 'tickets:read',
  'POST /tickets': 'tickets:write',
  'GET /tickets/{id}': 'tickets:read',
  'PUT /tickets/{id}': 'tickets:write',
  'DELETE /tickets/{id}': 'tickets:delete',
  'PATCH /tickets/{id}/status': 'tickets:write',
  'POST /tickets/bulk-update': 'tickets:write',
  'GET /board': 'tickets:read',
  'GET /tickets/{id}/comments': 'comments:read',
  'POST /tickets/{id}/comments': 'comments:write',
  'GET /comments/{id}': 'comments:read',
  'PUT /comments/{id}': 'comments:write',
  'DELETE /comments/{id}': 'comments:write',
  'GET /tickets/{id}/attachments': 'tickets:read',
  'POST /tickets/{id}/attachments': 'tickets:write',
  'GET /attachments/{id}/download': 'tickets:read',
  'DELETE /attachments/{id}': 'tickets:write',
  'GET /webhooks': 'tickets:read',
  'POST /webhooks': 'tickets:write',
  'DELETE /webhooks/{id}': 'tickets:write',
  'GET /projects': null,
  'GET /ticket-types': 'tickets:read',
  'GET /users': 'tickets:read',
};
/**
 * The additive operations' scopes (reads tickets:read, writes tickets:write, as their resources; a
 * single lookup as its list).
 */
const ADDITIVE_SCOPES: Record<string, string | null> = {
  'POST /tickets/{id}/merge': 'tickets:write',
  'POST /tickets/{id}/restore': 'tickets:write',
  'GET /attachments/{id}': 'tickets:read',
  'GET /webhooks/{id}/deliveries': 'tickets:read',
  'POST /webhooks/{id}/deliveries/{deliveryId}/redeliver': 'tickets:write',
  'GET /webhooks/{id}': 'tickets:read',
  'PATCH /webhooks/{id}': 'tickets:write',
  'POST /webhooks/{id}/rotate-secret': 'tickets:write',
  'POST /webhooks/{id}/ping': 'tickets:write',
  'POST /webhooks/{id}/deliveries/redeliver': 'tickets:write',
  'GET /tickets/{id}/history': 'tickets:read',
  'GET /tickets/{id}/mail': 'comments:read',
  'GET /events': 'tickets:read',
  'GET /projects/{id}': null,
  'GET /ticket-types/{id}': 'tickets:read',
  'GET /users/{id}': 'tickets:read',
  // Customers (issue 28): their own scopes; a customer's tickets are tickets.
  'GET /customers': 'customers:read',
  'POST /customers': 'customers:write',
  'GET /customers/{id}': 'customers:read',
  'PUT /customers/{id}': 'customers:write',
  'DELETE /customers/{id}': 'customers:write',
  'POST /customers/{id}/merge': 'customers:write',
  'GET /customers/{id}/tickets': 'tickets:read',
  'GET /organizations': 'customers:read',
  'POST /organizations': 'customers:write',
  'GET /organizations/{id}': 'customers:read',
  'PUT /organizations/{id}': 'customers:write',
  'DELETE /organizations/{id}': 'customers:write',
};
/** The event stream is for integrations; the session host has the activity feed instead. */
const API_ONLY = ['GET /events'];
/** The API operations that need no project (spec "Project context (shared)"). */
const WITHOUT_PROJECT = [
  'GET /projects',
  'GET /users',
  'GET /projects/{id}',
  'GET /users/{id}',
  // Customers and organizations are fleet-wide (a customer's tickets are the project's).
  'GET /customers',
  'POST /customers',
  'GET /customers/{id}',
  'PUT /customers/{id}',
  'DELETE /customers/{id}',
  'POST /customers/{id}/merge',
  'GET /organizations',
  'POST /organizations',
  'GET /organizations/{id}',
  'PUT /organizations/{id}',
  'DELETE /organizations/{id}',
];
/** Spec "Extra errors" per endpoint (the document may list more; never fewer). */
const SPEC_EXTRA_ERRORS: Record<string, number[]> = {
  'GET /tickets': [400],
  'POST /tickets': [400, 422],
  'GET /tickets/{id}': [400, 404],
  'PUT /tickets/{id}': [400, 404, 409, 422],
  'DELETE /tickets/{id}': [400, 404],
  'PATCH /tickets/{id}/status': [400, 404, 422],
  'POST /tickets/bulk-update': [422],
  'GET /board': [400],
  'GET /tickets/{id}/comments': [400, 404],
  'POST /tickets/{id}/comments': [400, 404, 422],
  'GET /comments/{id}': [400, 404],
  'PUT /comments/{id}': [400, 403, 404, 422],
  'DELETE /comments/{id}': [400, 403, 404],
  'GET /tickets/{id}/attachments': [404],
  'POST /tickets/{id}/attachments': [404, 422],
  'GET /attachments/{id}/download': [400, 404],
  'POST /webhooks': [422],
  'DELETE /webhooks/{id}': [400, 404],
  'GET /ticket-types': [400],
};
const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;
const COMMON_RESPONSES: Record<string, string> = {
  '401': 'Unauthorized',
  '402': 'PaymentRequired',
  '403': 'Forbidden',
  '429': 'TooManyRequests',
  '500': 'InternalError',
};

function operations(document: Document): { key: string; path: string; operation: Operation }[] {
  const found: { key: string; path: string; operation: Operation }[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const method of METHODS) {
      const operation = item?.[method];
      if (operation) found.push({ key: `${method.toUpperCase()} ${path}`, path, operation });
    }
  }
  return found;
}

/** Served on the API host: the document's own server, or named beside the session host's. */
const isApi = (operation: Operation) =>
  operation.servers === undefined || operation.servers.some((server) => server.url === '{api_url}/v1');
const isApp = (operation: Operation) =>
  operation.servers?.some((server) => server.url === '{app_url}/api') ?? false;

function parameters(operation: Operation): OpenAPIV3_1.ParameterObject[] {
  return (operation.parameters ?? []).filter(
    (parameter): parameter is OpenAPIV3_1.ParameterObject => !('$ref' in parameter),
  );
}

function refs(operation: Operation): string[] {
  return (operation.parameters ?? []).flatMap((parameter) => ('$ref' in parameter ? [parameter.$ref] : []));
}

/** Lookarounds: the fuzzer's generator (and many validators) cannot read them in a `pattern`. */
const LOOKAROUNDS = ['(?=', '(?!', '(?<=', '(?<!'];

/** Every `pattern` of the document with a lookaround, by where it stands (`paths./x.post....`). */
function lookaroundPatterns(node: unknown, at = ''): string[] {
  if (Array.isArray(node)) return node.flatMap((item, index) => lookaroundPatterns(item, `${at}[${index}]`));
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) => {
    const here = at ? `${at}.${key}` : key;
    if (key === 'pattern' && typeof value === 'string') {
      return LOOKAROUNDS.some((token) => value.includes(token)) ? [`${here}: ${value}`] : [];
    }
    return lookaroundPatterns(value, here);
  });
}

/** Every `pattern` of the document. */
function patterns(node: unknown): string[] {
  if (Array.isArray(node)) return node.flatMap(patterns);
  if (node === null || typeof node !== 'object') return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === 'pattern' && typeof value === 'string' ? [value] : patterns(value),
  );
}

describe('the OpenAPI document', () => {
  const document = buildOpenApiDocument() as unknown as Document;
  const apiOperations = operations(document).filter(({ operation }) => isApi(operation));

  it('is a valid OpenAPI 3.1 document (swagger-parser)', async () => {
    expect(document.openapi).to.equal('3.1.0');
    await SwaggerParser.validate(structuredClone(document));
  });

  it('is rejected by swagger-parser when broken (the check can fail)', async () => {
    const broken = structuredClone(document) as unknown as {
      paths: Record<string, Record<string, { parameters: { in: string }[] }>>;
    };
    // Request bodies are not parameters in OpenAPI 3.
    broken.paths['/tickets/{id}']!.get!.parameters.push({ in: 'body' });
    let failed = false;
    await SwaggerParser.validate(broken as unknown as Document).catch(() => (failed = true));
    expect(failed).to.equal(true);
  });

  it('has every endpoint of the spec on the API host, with its scope and extra errors', () => {
    const byKey = new Map(apiOperations.map((entry) => [entry.key, entry.operation]));
    for (const endpoint of SPEC_API_ENDPOINTS) {
      const operation = byKey.get(endpoint);
      expect(operation, endpoint).to.not.equal(undefined);
      const scope = SPEC_SCOPES[endpoint];
      expect(operation!.security!.slice(0, 2), endpoint).to.deep.equal([
        { ApiKeyBearer: scope ? [scope] : [] },
        { ApiKeyHeader: scope ? [scope] : [] },
      ]);
      for (const status of SPEC_EXTRA_ERRORS[endpoint] ?? []) {
        expect(Object.keys(operation!.responses ?? {}), `${endpoint} ${status}`).to.include(String(status));
      }
    }
  });

  it("states the scope of every API operation: the spec's, or for additive ones their resource's", () => {
    const pinned: Record<string, string | null> = { ...SPEC_SCOPES, ...ADDITIVE_SCOPES };
    expect(apiOperations.map((entry) => entry.key).sort()).to.deep.equal(Object.keys(pinned).sort());
    for (const { key, operation } of apiOperations) {
      const scopes = pinned[key] ? [pinned[key]] : [];
      expect(operation.security!.slice(0, 2), key).to.deep.equal([
        { ApiKeyBearer: scopes },
        { ApiKeyHeader: scopes },
      ]);
      expect(operation.description, key).to.include(
        pinned[key] ? `Scope: \`${pinned[key]}\`` : 'Any valid API key.',
      );
    }
  });

  it('takes the project context (key scope, project_id, project) on every API operation bound to a project', () => {
    for (const { key, operation } of apiOperations) {
      const query = parameters(operation)
        .filter((parameter) => parameter.in === 'query')
        .map((parameter) => parameter.name);
      const statuses = Object.keys(operation.responses ?? {});
      if (WITHOUT_PROJECT.includes(key)) {
        expect(query, key).to.not.include.members(['project_id', 'project']);
        // Only an operation on one resource can miss (its id); a list without a project never answers 404.
        if (key.includes('{id}')) expect(statuses, key).to.include.members(['400', '404']);
        else expect(statuses, key).to.not.include('404');
      } else {
        expect(query, key).to.include.members(['project_id', 'project']);
        expect(statuses, key).to.include.members(['400', '404']);
      }
    }
  });

  it('serves every API operation on the session host too, stating the role it needs there', () => {
    for (const { key, operation } of apiOperations) {
      if (API_ONLY.includes(key)) {
        expect(isApp(operation), key).to.equal(false);
        continue;
      }
      expect(isApp(operation), key).to.equal(true);
      const session = operation.security!.slice(2);
      expect(session, key).to.have.length(1);
      const [role] = session[0]!.SessionCookie!;
      expect(['viewer', 'agent', 'team_lead', 'admin'], key).to.include(role);
      expect(Object.keys(session[0]!), key).to.deep.equal(
        key.startsWith('GET ') ? ['SessionCookie'] : ['SessionCookie', 'CsrfToken'],
      );
      expect(operation.description, key).to.include(
        `Session host: a signed-in user of role \`${role}\` or higher`,
      );
    }
  });

  it('names, tags, describes and secures every operation', () => {
    const all = operations(document);
    const ids = all.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size, 'unique operationIds').to.equal(all.length);
    const tags = (document.tags ?? []).map((tag) => tag.name);
    for (const { key, operation } of all) {
      expect(operation.operationId, key).to.be.a('string').and.not.equal('');
      expect(operation.summary, key).to.be.a('string').and.not.equal('');
      expect(operation.tags, key).to.have.length(1);
      expect(tags, key).to.include(operation.tags![0]);
      expect(operation.security, key).to.be.an('array');
    }
    expect(tags.every((tag) => all.some(({ operation }) => operation.tags?.includes(tag)))).to.equal(true);
  });

  it('documents Location on every 201, and each names a path the same host answers GET on', () => {
    const all = operations(document);
    const created = all.filter(({ operation }) => operation.responses?.['201'] !== undefined);
    expect(created.map(({ key }) => key)).to.include.members([
      'POST /tickets',
      'POST /webhooks',
      'POST /users',
      'POST /projects',
      'POST /projects/{id}/statuses',
      'POST /ticket-types',
      'POST /api-keys',
    ]);
    const gets = new Set(all.filter(({ key }) => key.startsWith('GET ')).map(({ path }) => path));
    // Where each creation's Location points (the handlers' `location`), by the operation's path.
    const located: Record<string, string> = {
      '/tickets': '/tickets/{id}',
      '/tickets/{id}/comments': '/comments/{id}',
      '/tickets/{id}/attachments': '/attachments/{id}',
      '/webhooks': '/webhooks/{id}',
      '/users': '/users/{id}',
      '/projects': '/projects/{id}',
      '/projects/{id}/statuses': '/projects/{id}',
      '/ticket-types': '/ticket-types/{id}',
      '/api-keys': '/api-keys/{id}',
      '/customers': '/customers/{id}',
      '/organizations': '/organizations/{id}',
      '/mailboxes': '/mailboxes/{id}',
    };
    for (const { key, path, operation } of created) {
      const response = operation.responses!['201'] as OpenAPIV3_1.ResponseObject;
      expect(Object.keys(response.headers ?? {}), key).to.include('Location');
      expect(located[path], key).to.be.a('string');
      expect(gets.has(located[path]!), `${key}: GET ${located[path]}`).to.equal(true);
    }
  });

  it('has the session endpoints the gateway serves and the API description itself', () => {
    const appKeys = operations(document)
      .filter(({ operation }) => !isApi(operation))
      .map(({ key }) => key);
    expect(appKeys).to.include.members(['GET /csrf-token', 'POST /auth/login', 'GET /openapi', 'GET /docs']);
    expect(document.paths!['/openapi']!.get!.security).to.deep.equal([]);
    expect(document.paths!['/auth/login']!.post!.security).to.deep.equal([
      { SessionCookie: [], CsrfToken: [] },
    ]);
  });

  it('names the two hosts as servers with variables', () => {
    expect(document.servers).to.deep.include({
      url: '{api_url}/v1',
      description: 'The API host (API keys); api_url is its origin',
      variables: { api_url: { default: 'http://127.0.0.1:8080' } },
    });
    for (const { operation } of operations(document).filter((entry) => isApp(entry.operation))) {
      expect(operation.servers!.at(-1)!.url).to.equal('{app_url}/api');
    }
  });

  it('declares the security schemes the gateway accepts, and only known scopes and roles', () => {
    const schemes = document.components!.securitySchemes!;
    expect(schemes.ApiKeyBearer).to.include({ type: 'http', scheme: 'bearer' });
    expect(schemes.ApiKeyHeader).to.include({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
    expect(schemes.SessionCookie).to.include({ type: 'apiKey', in: 'cookie', name: 'tix_session' });
    expect(schemes.CsrfToken).to.include({ type: 'apiKey', in: 'header', name: 'X-CSRF-Token' });
    // Every scope a key may carry is named where keys are described.
    const keyDescription = (schemes.ApiKeyBearer as { description: string }).description;
    for (const scope of SCOPES) expect(keyDescription).to.include(`\`${scope}\``);
    for (const { operation } of apiOperations) {
      for (const requirement of operation.security ?? []) {
        for (const [scheme, values] of Object.entries(requirement)) {
          // API keys list scopes; the session cookie lists the role the session host requires.
          const known: readonly string[] = scheme === 'SessionCookie' ? ROLES : SCOPES;
          for (const value of values) expect(known, scheme).to.include(value);
        }
      }
    }
  });

  it('lists the common errors and headers on every API operation', () => {
    for (const { key, operation } of apiOperations) {
      const responses = operation.responses ?? {};
      for (const status of ['401', '402', '403', '429', '500']) {
        expect(responses[status], `${key} ${status}`).to.deep.equal({
          $ref: `#/components/responses/${COMMON_RESPONSES[status]}`,
        });
      }
      expect(refs(operation), key).to.include('#/components/parameters/CorrelationId');
      const success = Object.entries(responses).find(([status]) => status.startsWith('2'))![1];
      expect(Object.keys((success as OpenAPIV3_1.ResponseObject).headers ?? {}), key).to.include.members([
        'X-Correlation-ID',
        'X-RateLimit-Limit',
        'X-RateLimit-Remaining',
        'X-RateLimit-Reset',
      ]);
    }
    const tooMany = document.components!.responses!.TooManyRequests as OpenAPIV3_1.ResponseObject;
    expect(Object.keys(tooMany.headers ?? {})).to.include('Retry-After');
  });

  it('offers Idempotency-Key on every API POST and shows the replay header', () => {
    for (const { key, operation } of apiOperations.filter((entry) => entry.key.startsWith('POST'))) {
      expect(refs(operation), key).to.include('#/components/parameters/IdempotencyKey');
      const success = Object.entries(operation.responses ?? {}).find(([status]) =>
        status.startsWith('2'),
      )![1];
      expect(Object.keys((success as OpenAPIV3_1.ResponseObject).headers ?? {}), key).to.include(
        'X-Idempotency-Replay',
      );
    }
  });

  it('documents every path parameter as required, ids as integers from 1 to 2147483647', () => {
    for (const { key, path, operation } of operations(document)) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
      const declared = parameters(operation).filter((parameter) => parameter.in === 'path');
      expect(declared.map((parameter) => parameter.name).sort(), key).to.deep.equal([...inPath].sort());
      for (const parameter of declared) {
        expect(parameter.required, `${key} ${parameter.name}`).to.equal(true);
        if (parameter.name === 'id') {
          expect(parameter.schema, key).to.include({ type: 'integer', minimum: 1, maximum: 2_147_483_647 });
          expect(parameter.schema, key).to.not.have.property('pattern');
        }
      }
    }
  });

  it('documents the list query of GET /tickets as the spec gives it', () => {
    const query = parameters(document.paths!['/tickets']!.get!).filter(
      (parameter) => parameter.in === 'query',
    );
    const byName = new Map(query.map((parameter) => [parameter.name, parameter.schema]));
    expect(byName.get('page')).to.include({ type: 'integer', minimum: 1, default: 1 });
    expect(byName.get('per_page')).to.include({ type: 'integer', minimum: 1, maximum: 100, default: 50 });
    expect(byName.get('sort')).to.include({ type: 'string', default: '-created_at' });
    expect(byName.get('priority')).to.deep.include({ enum: ['low', 'medium', 'high', 'critical'] });
    // `none` (additive), or a user id (digits).
    expect((byName.get('assignee') as { anyOf: object[] }).anyOf).to.deep.equal([
      { type: 'string', enum: ['none'] },
      {
        type: 'string',
        pattern: '^[0-9]+$',
        description: 'Only tickets assigned to this user id.',
        example: 7,
      },
    ]);
    expect([...byName.keys()]).to.include.members([
      'status',
      'q',
      'project_id',
      'project',
      'created_since',
      'updated_since',
      'deleted',
    ]);
  });

  it('documents the multipart upload and the raw download', () => {
    const upload = document.paths!['/tickets/{id}/attachments']!.post!;
    const form = (upload.requestBody as OpenAPIV3_1.RequestBodyObject).content['multipart/form-data']!;
    expect(form.schema).to.deep.include({ required: ['file'] });
    const download = document.paths!['/attachments/{id}/download']!.get!.responses[
      '200'
    ] as OpenAPIV3_1.ResponseObject;
    expect(Object.keys(download.headers ?? {})).to.include.members([
      'Content-Disposition',
      'Content-Length',
      'Cache-Control',
    ]);
  });

  it('has an example for every JSON request body, accepted by the route validation', () => {
    for (const operation of OPERATIONS) {
      const body = operation.request?.body;
      if (!body) continue;
      const label = `${operation.method.toUpperCase()} ${operation.path}`;
      const result = body.safeParse(operation.bodyExample);
      expect(result.success, `${label}: ${JSON.stringify(result.error?.issues)}`).to.equal(true);
      const documented = document.paths![openApiPath(operation.path)]![operation.method]!;
      const content = (documented.requestBody as OpenAPIV3_1.RequestBodyObject).content['application/json']!;
      expect(content.example, label).to.deep.equal(operation.bodyExample);
    }
  });

  it('has success examples that match the documented response schema', () => {
    for (const operation of OPERATIONS) {
      if (operation.success.kind !== 'json') continue;
      const label = `${operation.method.toUpperCase()} ${operation.path}`;
      const envelope = successEnvelope(operation.success.data);
      const result = envelope.safeParse({ ok: true, data: operation.success.example });
      expect(result.success, `${label}: ${JSON.stringify(result.error?.issues)}`).to.equal(true);
    }
  });

  it('has resource examples shaped exactly like the component schemas (every field, nothing more)', () => {
    const pairs: [string, unknown][] = [
      ['Project', EXAMPLES.project],
      ['TicketType', EXAMPLES.ticketType],
      ['User', EXAMPLES.user],
      ['Ticket', EXAMPLES.ticket],
      ['Ticket', EXAMPLES.mergedTicket],
      ['Comment', EXAMPLES.comment],
      ['Attachment', EXAMPLES.attachment],
      ['Guardrails', EXAMPLES.guardrails],
      ['Webhook', EXAMPLES.webhook],
      ['CreatedWebhook', EXAMPLES.createdWebhook],
      ['Delivery', EXAMPLES.delivery],
      ['Activity', EXAMPLES.activity],
      ['Activity', EXAMPLES.commentActivity],
      ['StreamedEvent', EXAMPLES.streamedEvent],
      ['Pagination', EXAMPLES.pagination],
    ];
    for (const [name, example] of pairs) {
      const schema = COMPONENT_SCHEMAS[name] as z.ZodObject;
      expect(schema.strict().safeParse(example).success, name).to.equal(true);
      const required = Object.entries(schema.shape)
        .filter(([, field]) => !(field as z.ZodType).safeParse(undefined).success)
        .map(([field]) => field);
      expect(Object.keys(example as object), name).to.include.members(required);
      expect(document.components!.schemas![name], name).to.not.equal(undefined);
    }
  });

  it('documents the polls: If-None-Match, ETag and X-Poll-Interval, 304 without a body, 410', () => {
    for (const [path, host] of [
      ['/activity/new', 'app'],
      ['/events', 'api'],
    ] as const) {
      const operation = document.paths![path]!.get!;
      expect(isApp(operation), path).to.equal(host === 'app');
      expect(refs(operation), path).to.include('#/components/parameters/IfNoneMatch');
      const responses = operation.responses as Record<string, OpenAPIV3_1.ResponseObject>;
      for (const status of ['200', '304']) {
        expect(Object.keys(responses[status]!.headers ?? {}), `${path} ${status}`).to.include.members([
          'ETag',
          'X-Poll-Interval',
          'X-Correlation-ID',
        ]);
      }
      expect(responses['304']!.content, path).to.equal(undefined);
      expect(responses['410'], path).to.deep.equal({ $ref: '#/components/responses/Gone' });
    }
    expect(document.paths!['/activity']!.get!.responses).to.not.have.property('304');
  });

  it('documents a text parameter parsed into an integer as that integer', () => {
    expect(integerOverlay(idParam({ message: 'bad', description: 'x' }))).to.deep.equal({
      type: 'integer',
      minimum: 1,
      maximum: 2_147_483_647,
    });
    expect(integerOverlay(integerParam({ min: 5, max: 9, message: 'bad', description: 'x' }))).to.deep.equal({
      type: 'integer',
      minimum: 5,
      maximum: 9,
    });
    expect(integerOverlay(z.string().min(1))).to.equal(undefined);
  });

  it('has no lookahead or lookbehind in any pattern (the fuzzer cannot generate for one)', () => {
    // Not vacuous: the document has patterns (a zod .regex() becomes one), and the walk finds a
    // lookaround however deep it stands.
    expect(patterns(document)).to.not.be.empty;
    expect(lookaroundPatterns(document)).to.deep.equal([]);
    const broken = structuredClone(document) as unknown as {
      components: { schemas: Record<string, unknown> };
    };
    for (const token of LOOKAROUNDS) {
      broken.components.schemas.Broken = { type: 'string', pattern: `^${token}a)` };
      expect(lookaroundPatterns(broken)).to.deep.equal([`components.schemas.Broken.pattern: ^${token}a)`]);
    }
    broken.components.schemas.Broken = {
      type: 'object',
      properties: { tags: { type: 'array', prefixItems: [{ type: 'string', pattern: '(?<=a)b' }] } },
    };
    expect(lookaroundPatterns(broken)).to.deep.equal([
      'components.schemas.Broken.properties.tags.prefixItems[0].pattern: (?<=a)b',
    ]);
  });

  it('documents the errors an operation can answer from its inputs', () => {
    const create = OPERATIONS.find((operation) => operation.operationId === 'createTicket')!;
    expect(errorStatusesOf(create)).to.include.members([400, 401, 402, 403, 404, 413, 415, 422, 429, 500]);
    const projects = OPERATIONS.find((operation) => operation.operationId === 'listProjects')!;
    expect(errorStatusesOf(projects)).to.not.include(404);
  });
});
