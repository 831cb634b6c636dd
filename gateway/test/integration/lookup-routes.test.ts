import { expectError, suiteFixture } from '@tix/kit/testing';
import { expect } from 'chai';
import {
  FIELD_SCHEMA,
  FULL_KEY,
  NO_TICKETS_READ_KEY,
  PROJECTS,
  SCOPED_KEY,
  startFakeLookupGateway,
  USERS,
} from '../support/fake-lookup.js';
import { bearer, request, startTestGateway } from '../support/test-gateway.js';

/** Acme and Globex as the fake lookup holds them: the gateway presents a project with the same fields. */
const [ACME, GLOBEX] = PROJECTS;
/** Carol (id 12, an inactive viewer) as the fake lookup holds her: a user is presented with the same fields. */
const [, , CAROL] = USERS;
const ACME_TYPES = [
  {
    id: 1,
    name: 'Bug',
    slug: 'bug',
    description: 'Something broke',
    is_default: true,
    field_schema: FIELD_SCHEMA,
    retired_at: null,
  },
  {
    id: 2,
    name: 'Question',
    slug: 'question',
    description: '',
    is_default: false,
    field_schema: [],
    retired_at: null,
  },
];
const GLOBEX_TYPES = [
  {
    id: 3,
    name: 'Task',
    slug: 'task',
    description: '',
    is_default: true,
    field_schema: [],
    retired_at: null,
  },
];

describe('lookup routes on /v1 (fake lookup over gRPC)', () => {
  const fake = suiteFixture(() => startFakeLookupGateway());
  afterEach(() => fake.lookup.reset());

  const get = (path: string, key: string) =>
    request(`${fake.gateway.apiUrl}${path}`, { headers: bearer(key) });

  describe('GET /v1/projects', () => {
    it('lists every project for an unscoped key', async () => {
      const response = await get('/v1/projects', FULL_KEY);
      expect(response.status).to.equal(200);
      expect(response.body.ok).to.equal(true);
      expect(response.body.data.count).to.equal(3);
      expect(response.body.data.projects[0]).to.deep.equal(ACME);
      expect(response.body.data.projects[1]).to.deep.equal(GLOBEX);
    });

    it('shows a project-scoped key only its own project', async () => {
      const response = await get('/v1/projects', SCOPED_KEY);
      expect(response.body).to.deep.equal({ ok: true, data: { projects: [GLOBEX], count: 1 } });
    });

    it('needs no scope beyond a valid key', async () => {
      expect((await get('/v1/projects', NO_TICKETS_READ_KEY)).status).to.equal(200);
    });

    it('passes the API key principal to the service', async () => {
      await get('/v1/projects', SCOPED_KEY);
      expect(fake.lookup.lastContext.ListProjects?.principal).to.deep.equal({
        kind: 'api_key',
        user_id: 11,
        role: 'agent',
        scopes: ['tickets:read'],
        key_id: 2,
        project_id: 2,
      });
    });
  });

  describe('GET /v1/ticket-types', () => {
    it('answers by query project_id, with field_schema parsed', async () => {
      const response = await get('/v1/ticket-types?project_id=1', FULL_KEY);
      expect(response.body).to.deep.equal({ ok: true, data: { ticket_types: ACME_TYPES, count: 2 } });
    });

    it('answers by project slug, and ignores unknown query parameters', async () => {
      const response = await get('/v1/ticket-types?project=globex&colour=blue', FULL_KEY);
      expect(response.body).to.deep.equal({ ok: true, data: { ticket_types: GLOBEX_TYPES, count: 1 } });
    });

    it('project_id wins over project', async () => {
      const response = await get('/v1/ticket-types?project=globex&project_id=1', FULL_KEY);
      expect(response.body.data.ticket_types).to.deep.equal(ACME_TYPES);
    });

    it('a scoped key needs no parameter and ignores project', async () => {
      expect((await get('/v1/ticket-types', SCOPED_KEY)).body.data.ticket_types).to.deep.equal(GLOBEX_TYPES);
      expect((await get('/v1/ticket-types?project=acme', SCOPED_KEY)).body.data.ticket_types).to.deep.equal(
        GLOBEX_TYPES,
      );
    });

    it('a scoped key naming another project by id gets 404', async () => {
      const response = await get('/v1/ticket-types?project_id=1', SCOPED_KEY);
      expectError(response, 404, 'Project not found');
    });

    it('an unscoped key without project context gets 400 Project ID is required.', async () => {
      const response = await get('/v1/ticket-types', FULL_KEY);
      expectError(response, 400, 'Project ID is required.');
    });

    it('a key without tickets:read gets 403 before any project lookup', async () => {
      const response = await get('/v1/ticket-types?project_id=1', NO_TICKETS_READ_KEY);
      expectError(response, 403, 'Missing required scope: tickets:read');
      expect(fake.lookup.calls.ResolveProject).to.equal(undefined);
    });

    it('resolves each project once and serves repeats (by slug or id) from the cache', async () => {
      const fresh = await startTestGateway({ services: { lookup: fake.lookup.address } });
      try {
        for (const query of ['project=acme', 'project=acme', 'project_id=1']) {
          const response = await request(`${fresh.apiUrl}/v1/ticket-types?${query}`, {
            headers: bearer(FULL_KEY),
          });
          expect(response.body.data.ticket_types).to.deep.equal(ACME_TYPES);
        }
        expect(fake.lookup.calls.ResolveProject).to.equal(1);
        expect(fake.lookup.calls.ListTicketTypes).to.equal(3);
      } finally {
        await fresh.close();
      }
    });
  });

  describe('GET /v1/users', () => {
    it('lists users with the spec fields and the additive is_system', async () => {
      const response = await get('/v1/users', FULL_KEY);
      expect(response.body).to.deep.equal({
        ok: true,
        data: {
          users: USERS,
          count: 3,
        },
      });
    });

    it('needs tickets:read but no project', async () => {
      expect((await get('/v1/users', SCOPED_KEY)).status).to.equal(200);
      expect((await get('/v1/users', NO_TICKETS_READ_KEY)).status).to.equal(403);
    });
  });

  describe('single lookups (GET /v1/projects/{id}, /ticket-types/{id}, /users/{id})', () => {
    const notFound = (message: string) => ({ ok: false, error: { code: 404, message } });

    it('GET /v1/projects/{id}: the project, with a strong ETag; 304 when If-None-Match names it', async () => {
      const response = await get('/v1/projects/1', NO_TICKETS_READ_KEY);
      expect(response.status).to.equal(200);
      expect(response.body).to.deep.equal({ ok: true, data: { project: ACME } });
      const etag = response.headers.get('etag')!;
      expect(etag).to.match(/^"d[A-Za-z0-9_-]+"$/);
      expect(response.headers.get('cache-control')).to.equal('private, no-cache');
      const again = await request(`${fake.gateway.apiUrl}/v1/projects/1`, {
        headers: { ...bearer(FULL_KEY), 'If-None-Match': etag },
      });
      expect(again.status).to.equal(304);
      // Read afresh each time, not from the project resolver's cache.
      expect(fake.lookup.calls.ListProjects).to.equal(2);
    });

    it('GET /v1/projects/{id}: 404 for an unknown project and, to a scoped key, for another project', async () => {
      const unknown = await get('/v1/projects/99', FULL_KEY);
      expect(unknown.status).to.equal(404);
      expect(unknown.body).to.deep.equal(notFound('Project not found'));
      expect((await get('/v1/projects/1', SCOPED_KEY)).body).to.deep.equal(notFound('Project not found'));
      expect((await get('/v1/projects/2', SCOPED_KEY)).body).to.deep.equal({
        ok: true,
        data: { project: GLOBEX },
      });
    });

    it('GET /v1/ticket-types/{id}: the type in the project context; 404 for a type of another project', async () => {
      const response = await get('/v1/ticket-types/1?project_id=1', FULL_KEY);
      expect(response.body).to.deep.equal({ ok: true, data: { ticket_type: ACME_TYPES[0] } });
      expect(response.headers.get('etag')).to.match(/^"d/);
      expect((await get('/v1/ticket-types/3', SCOPED_KEY)).body).to.deep.equal({
        ok: true,
        data: { ticket_type: GLOBEX_TYPES[0] },
      });
      const foreign = await get('/v1/ticket-types/3?project_id=1', FULL_KEY);
      expect(foreign.status).to.equal(404);
      expect(foreign.body).to.deep.equal(notFound('Ticket type not found'));
      expect((await get('/v1/ticket-types/1', FULL_KEY)).status).to.equal(400);
      expect((await get('/v1/ticket-types/1?project_id=1', NO_TICKETS_READ_KEY)).status).to.equal(403);
    });

    it('GET /v1/users/{id}: any user, inactive too; 404 for an unknown id; tickets:read needed', async () => {
      const response = await get('/v1/users/12', SCOPED_KEY);
      expect(response.body).to.deep.equal({
        ok: true,
        data: {
          user: CAROL,
        },
      });
      expect(response.headers.get('etag')).to.match(/^"d/);
      expect((await get('/v1/users/13', FULL_KEY)).body).to.deep.equal(notFound('User not found'));
      expect((await get('/v1/users/12', NO_TICKETS_READ_KEY)).status).to.equal(403);
    });

    it('answers 400 naming a bad id, before any lookup call', async () => {
      for (const [path, message] of [
        ['/v1/projects/abc', 'Invalid project id'],
        ['/v1/projects/0', 'Invalid project id'],
        ['/v1/ticket-types/-1?project_id=1', 'Invalid ticket type id'],
        ['/v1/users/99999999999', 'Invalid user id'],
      ] as const) {
        const response = await get(path, FULL_KEY);
        expect(response.status, path).to.equal(400);
        expect(response.body.error.message, path).to.equal(message);
      }
      expect(fake.lookup.calls.ListProjects).to.equal(undefined);
      expect(fake.lookup.calls.GetTicketType).to.equal(undefined);
      expect(fake.lookup.calls.GetUsers).to.equal(undefined);
    });
  });

  describe('API key cache', () => {
    it('authenticates a key once and then serves it from memory', async () => {
      const gatewayWithFreshCache = await startTestGateway({ services: { lookup: fake.lookup.address } });
      try {
        for (let i = 0; i < 3; i += 1) {
          const response = await request(`${gatewayWithFreshCache.apiUrl}/v1/users`, {
            headers: bearer(FULL_KEY),
          });
          expect(response.status).to.equal(200);
        }
        expect(fake.lookup.calls.AuthenticateApiKey).to.equal(1);
      } finally {
        await gatewayWithFreshCache.close();
      }
    });

    it('with AUTH_CACHE_TTL_MS=0 asks lookup every time', async () => {
      const uncached = await startTestGateway({
        services: { lookup: fake.lookup.address },
        authCacheTtlMs: 0,
      });
      try {
        await request(`${uncached.apiUrl}/v1/users`, { headers: bearer(FULL_KEY) });
        await request(`${uncached.apiUrl}/v1/users`, { headers: bearer(FULL_KEY) });
        expect(fake.lookup.calls.AuthenticateApiKey).to.equal(2);
      } finally {
        await uncached.close();
      }
    });
  });
});
