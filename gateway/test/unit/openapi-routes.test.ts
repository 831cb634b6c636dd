/**
 * Route coverage, both ways: the routers the gateway really serves (the API host's /v1 router and
 * the app host's /api router, built as createApp builds them) are walked, and every served method
 * and path must be an operation of the OpenAPI document, and every documented operation served.
 * For each route, the schemas its validation middleware applies must be the very objects the
 * document was built from.
 */
import { expect } from 'chai';
import type { RequestHandler, Router } from 'express';
import { createApiKeyAuthenticator } from '../../src/auth/api-key-authenticator.js';
import { validationSchemasOf, type RequestSchemas } from '../../src/http/validate.js';
import { buildOpenApiDocument, openApiPath } from '../../src/openapi/document.js';
import { OPERATIONS } from '../../src/routes/index.js';
import type { OperationDescription } from '../../src/routes/operation.js';
import { createProjectResolver } from '../../src/projects/project-resolver.js';
import { createSessionRouter } from '../../src/routes/app/index.js';
import { DEFAULT_ATTACHMENT_MAX_BYTES } from '../../src/routes/v1/attachments.schemas.js';
import { createApiRouter } from '../../src/routes/v1/index.js';
import { createServiceClients } from '../../src/services.js';
import { createMemorySessionStore } from '../../src/sessions/session-store.js';

interface ServedRoute {
  method: string;
  /** As registered, with the mount prefix of nested routers. */
  path: string;
  /** The schemas of the route's validation middleware for this method, if it has one. */
  validated?: RequestSchemas;
}

interface LayerLike {
  route?: { path: string; stack: { method?: string; handle: RequestHandler }[] };
  handle: { stack?: unknown[] };
  rawPath?: unknown;
}

/** Every method + path `router` serves (route.all fallbacks are not operations). */
function servedRoutes(router: Router, prefix = ''): ServedRoute[] {
  const served: ServedRoute[] = [];
  for (const layer of router.stack as unknown as LayerLike[]) {
    if (layer.route) {
      const byMethod = new Map<string, ServedRoute>();
      for (const entry of layer.route.stack) {
        if (entry.method === undefined) continue;
        const route = byMethod.get(entry.method) ?? { method: entry.method, path: prefix + layer.route.path };
        const validated = validationSchemasOf.get(entry.handle);
        if (validated) route.validated = validated;
        byMethod.set(entry.method, route);
      }
      served.push(...byMethod.values());
    } else if (Array.isArray(layer.handle.stack)) {
      // A nested router: its routes are served under its mount path.
      const mount = typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? layer.rawPath : '';
      served.push(...servedRoutes(layer.handle as unknown as Router, prefix + mount));
    }
  }
  return served;
}

const key = (method: string, path: string) => `${method.toUpperCase()} ${openApiPath(path)}`;

describe('OpenAPI document and served routes', () => {
  const services = createServiceClients(
    { lookup: null, tickets: null, comments: null, attachments: null, webhooks: null },
    1_000,
  );
  const deps = {
    services,
    sessions: { store: createMemorySessionStore({ ttlSeconds: 60 }), secureCookie: false },
    apiDescriptionJson: '{}',
    apiKeys: createApiKeyAuthenticator({ lookup: services.lookup, ttlMs: 1_000 }),
    projects: createProjectResolver({ lookup: services.lookup, ttlMs: 1_000 }),
    bodyLimitBytes: 1024 * 1024,
    attachments: { maxBytes: DEFAULT_ATTACHMENT_MAX_BYTES, transferDeadlineMs: 60_000 },
  };
  const apiRouter = createApiRouter(deps);
  const sessionRouter = createSessionRouter(deps);
  const served = {
    api: servedRoutes(apiRouter),
    app: servedRoutes(sessionRouter),
  };
  const document = buildOpenApiDocument();

  it('finds the routes it walks (the walker itself works)', () => {
    expect(served.api.map((route) => key(route.method, route.path))).to.include('PUT /tickets/{id}');
    expect(served.app.map((route) => key(route.method, route.path))).to.include('GET /openapi');
  });

  for (const host of ['api', 'app'] as const) {
    it(`documents every route the ${host} host serves`, () => {
      const documented = new Set(
        OPERATIONS.filter((operation) => operation.hosts.includes(host)).map((operation) =>
          key(operation.method, operation.path),
        ),
      );
      const undocumented = served[host]
        .map((route) => key(route.method, route.path))
        .filter((route) => !documented.has(route));
      expect(undocumented, 'served but not documented').to.deep.equal([]);
    });

    it(`serves every operation documented for the ${host} host`, () => {
      const routes = new Set(served[host].map((route) => key(route.method, route.path)));
      const unserved = OPERATIONS.filter((operation) => operation.hosts.includes(host))
        .map((operation) => key(operation.method, operation.path))
        .filter((operation) => !routes.has(operation));
      expect(unserved, 'documented but not served').to.deep.equal([]);
    });
  }

  it('puts every operation of the table into the document, and nothing else', () => {
    const inDocument: string[] = [];
    for (const [path, item] of Object.entries(document.paths ?? {})) {
      for (const method of ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const) {
        if (item[method]) inDocument.push(`${method.toUpperCase()} ${path}`);
      }
    }
    const fromTable = OPERATIONS.map((operation) => key(operation.method, operation.path));
    expect(inDocument.sort()).to.deep.equal([...fromTable].sort());
  });

  it('builds each operation from the very schemas its route validates with', () => {
    const byKey = new Map<string, OperationDescription>(
      OPERATIONS.map((operation) => [
        `${operation.hosts.join()} ${key(operation.method, operation.path)}`,
        operation,
      ]),
    );
    for (const host of ['api', 'app'] as const) {
      for (const route of served[host]) {
        const operation = byKey.get(`${host} ${key(route.method, route.path)}`);
        if (!operation) continue; // reported by the coverage tests above
        const label = `${host} ${key(route.method, route.path)}`;
        for (const part of ['params', 'query', 'body'] as const) {
          expect(operation.request?.[part], `${label} ${part}`).to.equal(route.validated?.[part]);
        }
      }
    }
  });
});
