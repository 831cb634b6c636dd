/**
 * mountOperations over real HTTP (an express app on a loopback port): each operation's chain runs
 * access -> project context -> validation -> handler, the handler gets the parsed input, another
 * method on a declared path is 405 with Allow, and declarations that cannot be served are refused
 * when mounting, not at the first request.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import express, { type Router } from 'express';
import { z } from 'zod';
import { AppError, type OutgoingContext } from '@tix/kit';
import type { Principal, Scope } from '@tix/protos';
import type { ValidatedInput } from '../../src/http/validate.js';
import { errorHandler } from '../../src/http/error-handler.js';
import { notFound } from '../../src/http/routing.js';
import { json } from '../../src/resources/responses.js';
import type { Project, ProjectResolver } from '../../src/projects/project-resolver.js';
import { mountOperations } from '../../src/routes/mount.js';
import { defineOperation, type Operation, type RouteDeps } from '../../src/routes/operation.js';
import { recordingLogger } from '../support/fake-http.js';

const ACME: Project = { id: 7, slug: 'acme', name: 'Acme', prefix: 'ACME', description: '', statuses: [] };

const resolver: ProjectResolver = {
  byId: (id: number, _context: OutgoingContext) =>
    id === ACME.id ? Promise.resolve(ACME) : Promise.reject(AppError.notFound('Project not found')),
  bySlug: (slug: string) =>
    slug === ACME.slug ? Promise.resolve(ACME) : Promise.reject(AppError.notFound('Project not found')),
};

const deps = { projects: resolver } as unknown as RouteDeps;

/** What the handler of `renameThing` was given, per request. */
const seen: { input: ValidatedInput<{ params: z.ZodType; body: z.ZodType }>; project: unknown }[] = [];

const thingParams = z.object({
  id: z
    .string()
    .regex(/^[1-9][0-9]*$/, 'Invalid thing id')
    .transform(Number),
});
const renameBody = z.object({ name: z.string({ error: 'Name is required' }).min(1) });

function thingOperation(parts: Partial<Operation>): Operation {
  return defineOperation({
    method: 'get',
    path: '/things',
    hosts: ['api'],
    access: { scope: 'tickets:read', role: 'viewer' },
    project: 'none',
    operationId: 'listThings',
    tag: 'Tickets',
    summary: 'Things',
    success: json(200, 'Things.', z.object({}), {}),
    errors: [],
    handle: () => ({ data: {} }),
    ...parts,
  });
}

const renameThing = defineOperation({
  method: 'put',
  path: '/things/:id',
  hosts: ['api'],
  access: { scope: 'tickets:write', role: 'agent' },
  project: 'required',
  request: { params: thingParams, body: renameBody },
  bodyExample: { name: 'n' },
  operationId: 'renameThing',
  tag: 'Tickets',
  summary: 'Rename a thing',
  success: json(200, 'The thing.', z.object({}), {}),
  errors: [],
  handle(input) {
    const { params, query, body, project } = input;
    seen.push({ input: { params, query, body }, project });
    return { data: {} };
  },
});

const OPERATIONS: Operation[] = [
  thingOperation({}),
  renameThing,
  thingOperation({ method: 'delete', path: '/things/:id', operationId: 'deleteThing' }),
  thingOperation({ path: '/only-on-app', hosts: ['app'], access: 'public', operationId: 'appThing' }),
];

/** An app serving `operations` on the API host, with the principal named by `X-Scopes`. */
async function serve(mount: (router: Router) => void): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  app.use(express.json());
  app.use((request, _response, next) => {
    request.log = recordingLogger();
    const scopes = (request.headers['x-scopes'] ?? '').toString().split(',') as Scope[];
    request.principal = { kind: 'api_key', user_id: 1, role: 'agent', scopes } satisfies Principal;
    next();
  });
  const router = express.Router();
  mount(router);
  app.use(router, notFound(), errorHandler());
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('mountOperations', () => {
  let server: Awaited<ReturnType<typeof serve>>;

  before(async () => {
    server = await serve((router) => mountOperations(router, 'api', OPERATIONS, deps));
  });
  after(() => server.close());
  beforeEach(() => (seen.length = 0));

  async function call(method: string, path: string, scopes: string, body?: unknown) {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { 'x-scopes': scopes, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, allow: response.headers.get('allow'), body: text && JSON.parse(text) };
  }

  it('checks the scope, then the project context, then the input, then runs the handler', async () => {
    const refusals: [string, string, number, string][] = [
      ['/things/x', 'tickets:read', 403, 'Missing required scope: tickets:write'],
      ['/things/x', 'tickets:write', 400, 'Project ID is required.'],
      ['/things/x?project=nope', 'tickets:write', 404, 'Project not found'],
      ['/things/x?project=acme', 'tickets:write', 400, 'Invalid thing id'],
    ];
    for (const [path, scopes, status, message] of refusals) {
      const response = await call('PUT', path, scopes, {});
      expect([response.status, response.body.error?.message], path).to.deep.equal([status, message]);
    }
    const invalidBody = await call('PUT', '/things/9?project=acme', 'tickets:write', {});
    expect([invalidBody.status, invalidBody.body.error.validation_errors]).to.deep.equal([
      422,
      { name: ['Name is required'] },
    ]);
    expect(seen).to.deep.equal([]);
  });

  it('hands the handler the parsed input, with the project resolved', async () => {
    const response = await call('PUT', '/things/9?project=acme', 'tickets:write', { name: 'n', extra: 1 });
    expect(response.status).to.equal(200);
    expect(seen).to.deep.equal([
      { input: { params: { id: 9 }, query: { project: 'acme' }, body: { name: 'n' } }, project: ACME },
    ]);
  });

  it('answers another method on a declared path with 405 and Allow, in declaration order', async () => {
    const response = await call('POST', '/things/9', 'tickets:write', {});
    expect([response.status, response.allow]).to.deep.equal([405, 'PUT, DELETE, OPTIONS']);
    const list = await call('PATCH', '/things', '');
    expect([list.status, list.allow]).to.deep.equal([405, 'GET, HEAD, OPTIONS']);
  });

  it('mounts only the operations of its host; any valid key passes a null scope', async () => {
    expect((await call('GET', '/only-on-app', 'tickets:read')).status).to.equal(404);
    const anyKey = await serve((router) =>
      mountOperations(router, 'api', [thingOperation({ access: { scope: null, role: 'viewer' } })], deps),
    );
    try {
      expect((await fetch(`${anyKey.url}/things`)).status).to.equal(200);
    } finally {
      await anyKey.close();
    }
  });

  it('reads a costly part of the input only when the handler reads it; the rest is as the chain set it', async () => {
    let logReads = 0;
    const given: unknown[] = [];
    const reader = (read: boolean) =>
      thingOperation({
        path: read ? '/reads' : '/skips',
        operationId: read ? 'reads' : 'skips',
        request: { query: z.object({ page: z.coerce.number().default(1) }) },
        handle(input) {
          if (!read) return { data: {} };
          const { log, method, baseUrl, ifMatch, rateLimitBudget, projects } = input as typeof input & {
            projects: unknown;
          };
          given.push({
            log: Boolean(log),
            method,
            baseUrl,
            ifMatch,
            page: input.given.get('page'),
            projects,
          });
          return rateLimitBudget('/reads').then((budget) => ({ data: { budget } }));
        },
      });
    const counted = await serve((router) => {
      router.use((request, _response, next) => {
        const log = request.log;
        Object.defineProperty(request, 'log', { configurable: true, get: () => (logReads++, log) });
        next();
      });
      mountOperations(router, 'api', [reader(false), reader(true)], deps);
    });
    try {
      const skipped = await fetch(`${counted.url}/skips`, { headers: { 'x-scopes': 'tickets:read' } });
      expect([skipped.status, logReads]).to.deep.equal([200, 0]);
      const read = await fetch(`${counted.url}/reads?x=1`, {
        headers: { 'x-scopes': 'tickets:read', 'if-match': '"v1"' },
      });
      expect([read.status, await read.json()]).to.deep.equal([200, { ok: true, data: { budget: null } }]);
      expect(logReads).to.equal(1);
      // `given` is the query as sent: the default-filled page is not in it.
      expect(given).to.deep.equal([
        { log: true, method: 'GET', baseUrl: '', ifMatch: '"v1"', page: null, projects: resolver },
      ]);
    } finally {
      await counted.close();
    }
  });

  it('refuses, when mounting, what it cannot serve', () => {
    const mount = (host: 'api' | 'app', operations: Operation[]) => () =>
      mountOperations(express.Router(), host, operations, deps);
    expect(mount('api', [thingOperation({}), thingOperation({ operationId: 'again' })])).to.throw(
      /again: get \/things is declared twice/,
    );
    expect(mount('api', [thingOperation({ access: { session: 'optional' } })])).to.throw(/app host/);
  });

  it('checks the role of a signed-in user on the session host', async () => {
    const onApp = await serve((router) => {
      // The session router's sign-in gate sets the principal; here a header names its role.
      router.use((request, _response, next) => {
        request.principal = {
          kind: 'session',
          user_id: 2,
          role: String(request.headers['x-role']) as Principal['role'],
          scopes: [],
        };
        next();
      });
      mountOperations(
        router,
        'app',
        [thingOperation({ hosts: ['api', 'app'], access: { scope: 'tickets:delete', role: 'team_lead' } })],
        deps,
      );
    });
    try {
      const as = async (role: string) => {
        const response = await fetch(`${onApp.url}/things`, { headers: { 'x-role': role } });
        return { status: response.status, body: (await response.json()) as { error?: { message: string } } };
      };
      expect((await as('team_lead')).status).to.equal(200);
      expect((await as('admin')).status).to.equal(200);
      const refused = await as('agent');
      expect([refused.status, refused.body.error?.message]).to.deep.equal([
        403,
        'Your role (agent) does not allow this; it needs team_lead or higher',
      ]);
    } finally {
      await onApp.close();
    }
  });
});
