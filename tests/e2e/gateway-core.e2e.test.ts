import { expect } from 'chai';
import { eventually, expectError } from '@tix/kit/testing';
import { tixJson } from '../support/cli.js';
import { createKey, createProject, createTicketType, type ProjectFixture } from '../support/fixtures.js';
import { request, type ApiResponse } from '../support/http.js';

/** Every answer of the gateway, errors included, is an envelope with a correlation id. */
function expectEnvelope(response: ApiResponse, status: number, message: string | RegExp = /./): void {
  expect(response.headers.get('x-correlation-id')).to.be.a('string').and.not.be.empty;
  if (status >= 400) return expectError(response, status, message);
  expect(response.status, response.text).to.equal(status);
  expect(response.body.ok).to.equal(true);
}

describe('gateway core', () => {
  let projectA: ProjectFixture;
  let projectB: ProjectFixture;
  let unscoped: Awaited<ReturnType<typeof createKey>>;
  let scopedToA: Awaited<ReturnType<typeof createKey>>;

  before(async () => {
    [projectA, projectB] = await Promise.all([createProject(), createProject()]);
    await createTicketType(projectA.slug, { name: 'Question', slug: 'question', isDefault: true });
    unscoped = await createKey();
    scopedToA = await createKey({ project: projectA.slug });
  });

  describe('GET /v1/projects', () => {
    it('lists every project for an unscoped key', async () => {
      const response = await request('/v1/projects', { key: unscoped.key });
      expectEnvelope(response, 200);
      const slugs = (response.body.data.projects as { slug: string }[]).map((p) => p.slug);
      expect(slugs).to.include.members([projectA.slug, projectB.slug]);
      expect(response.body.data.count).to.equal(response.body.data.projects.length);
      const a = (response.body.data.projects as Record<string, unknown>[]).find(
        (p) => p.slug === projectA.slug,
      );
      expect(a).to.include({ id: projectA.id, name: `Project ${projectA.slug}`, description: '' });
    });

    it('shows a project-scoped key only its own project', async () => {
      const response = await request('/v1/projects', { key: scopedToA.key });
      expectEnvelope(response, 200);
      expect(response.body.data).to.deep.include({ count: 1 });
      expect(response.body.data.projects[0].id).to.equal(projectA.id);
    });

    it('needs no scope beyond a valid key', async () => {
      const key = await createKey({ scopes: 'comments:read' });
      expectEnvelope(await request('/v1/projects', { key: key.key }), 200);
    });
  });

  describe('authentication and scopes', () => {
    it('refuses a missing key with 401', async () => {
      expectEnvelope(await request('/v1/projects'), 401);
    });

    it('refuses an unknown key with 401', async () => {
      expectEnvelope(
        await request('/v1/projects', { key: 'tix_thisisnotarealkeyatallbutlooksabitlikeoneAAAAAA' }),
        401,
      );
    });

    it('refuses an API key on the session host with the exact message', async () => {
      expectEnvelope(
        await request('/api/csrf-token', { host: 'app', key: unscoped.key }),
        401,
        'API key authentication is only available on the API subdomain',
      );
      expectEnvelope(
        await request('/v1/projects', { host: 'app', key: unscoped.key }),
        401,
        'API key authentication is only available on the API subdomain',
      );
    });

    it('answers 403 on /v1/ticket-types for a key without tickets:read', async () => {
      const key = await createKey({ scopes: 'comments:read,comments:write', project: projectA.slug });
      expectEnvelope(await request('/v1/ticket-types', { key: key.key }), 403);
    });

    it('refuses a revoked key from then on', async () => {
      const key = await createKey({ scopes: 'tickets:read' });
      expectEnvelope(await request('/v1/users', { key: key.key }), 200);
      await tixJson(['key', 'revoke', '--id', String(key.id)]);
      await eventually(async () => (await request('/v1/users', { key: key.key })).status === 401, 10_000);
      expectEnvelope(await request('/v1/users', { key: key.key }), 401);
    });
  });

  describe('project context', () => {
    it('answers 400 "Project ID is required." to an unscoped key without project context', async () => {
      expectEnvelope(
        await request('/v1/ticket-types', { key: unscoped.key }),
        400,
        'Project ID is required.',
      );
    });

    it('resolves the project from project_id and from the project slug', async () => {
      const byId = await request(`/v1/ticket-types?project_id=${projectA.id}`, { key: unscoped.key });
      expectEnvelope(byId, 200);
      expect(byId.body.data.count).to.equal(1);
      expect(byId.body.data.ticket_types[0]).to.include({
        name: 'Question',
        slug: 'question',
        is_default: true,
      });
      expect(byId.body.data.ticket_types[0].field_schema).to.deep.equal([]);
      const bySlug = await request(`/v1/ticket-types?project=${projectA.slug}`, { key: unscoped.key });
      expect(bySlug.body.data).to.deep.equal(byId.body.data);
    });

    it('lets a scoped key work without parameters and keeps it inside its project', async () => {
      const own = await request('/v1/ticket-types', { key: scopedToA.key });
      expectEnvelope(own, 200);
      expect(own.body.data.count).to.equal(1);
      const other = await request(`/v1/ticket-types?project=${projectB.slug}`, { key: scopedToA.key });
      expectEnvelope(other, 200);
      expect(other.body.data).to.deep.equal(own.body.data);
    });

    it('answers 404 for an unknown project and 400 for a malformed project_id', async () => {
      expectEnvelope(await request('/v1/ticket-types?project_id=999999', { key: unscoped.key }), 404);
      expectEnvelope(await request('/v1/ticket-types?project=no-such-project', { key: unscoped.key }), 404);
      expectError(
        await request('/v1/ticket-types?project_id=abc', { key: unscoped.key }),
        400,
        'Invalid project_id',
        {
          project_id: ['must be an integer'],
        },
      );
    });
  });

  describe('GET /v1/users', () => {
    it('lists users with the spec fields', async () => {
      const response = await request('/v1/users', { key: unscoped.key });
      expectEnvelope(response, 200);
      const me = (response.body.data.users as Record<string, unknown>[]).find(
        (u) => u.id === unscoped.user_id,
      );
      expect(me).to.deep.equal({
        id: unscoped.user_id,
        name: `User ${unscoped.user.email}`,
        email: unscoped.user.email,
        role: 'agent',
        is_active: true,
        is_system: false,
      });
      expect(response.body.data.count).to.equal(response.body.data.users.length);
    });
  });

  describe('errors answer in the envelope with X-Correlation-ID', () => {
    it('404 for an unknown route', async () => {
      expectEnvelope(await request('/v1/nothing-here', { key: unscoped.key }), 404);
    });

    it('405 for a wrong method on a known route', async () => {
      const response = await request('/v1/projects', { method: 'DELETE', key: unscoped.key });
      expectEnvelope(response, 405);
      expect(response.headers.get('allow')).to.match(/GET/);
    });

    /** A browser session with its CSRF token, so that body errors are what the gateway answers. */
    async function session(): Promise<Record<string, string>> {
      const response = await request('/api/csrf-token', { host: 'app' });
      const cookie = response.headers.get('set-cookie')!.split(';')[0]!;
      return { cookie, 'x-csrf-token': response.body.data.token, 'content-type': 'application/json' };
    }

    it('400 for malformed JSON', async () => {
      const response = await request('/api/auth/login', {
        host: 'app',
        method: 'POST',
        rawBody: '{"email": ',
        headers: await session(),
      });
      expectEnvelope(response, 400);
    });

    it('413 for a body over the limit', async () => {
      const rawBody = JSON.stringify({ email: 'x@example.com', password: 'x'.repeat(3 * 1024 * 1024) });
      const response = await request('/api/auth/login', {
        host: 'app',
        method: 'POST',
        rawBody,
        headers: await session(),
      });
      expectEnvelope(response, 413);
    });

    it('keeps a well-formed correlation id from the caller', async () => {
      const response = await request('/v1/projects', {
        key: unscoped.key,
        headers: { 'x-correlation-id': 'e2e-trace-42' },
      });
      expect(response.headers.get('x-correlation-id')).to.equal('e2e-trace-42');
    });
  });

  describe('session host', () => {
    it('issues a CSRF token and sets the session cookie', async () => {
      const response = await request('/api/csrf-token', { host: 'app' });
      expectEnvelope(response, 200);
      expect(response.body.data.token).to.be.a('string').with.length.greaterThan(20);
      expect(response.headers.get('set-cookie')).to.match(/tix_session=[^;]+;.*HttpOnly/i);
    });

    it('serves /v1 only on the API host', async () => {
      expectEnvelope(await request('/v1/projects', { host: 'app' }), 404);
      expectEnvelope(await request('/api/csrf-token', { key: unscoped.key }), 404);
    });
  });

  describe('CORS', () => {
    it('answers a preflight with the spec headers', async () => {
      const response = await request('/v1/projects', {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
      });
      expect(response.status).to.equal(204);
      expect(response.headers.get('access-control-allow-methods')).to.equal(
        'GET, POST, PUT, PATCH, DELETE, OPTIONS',
      );
      expect(response.headers.get('access-control-allow-headers')).to.equal(
        'Content-Type, X-CSRF-Token, X-API-Key, Authorization, Idempotency-Key, If-None-Match',
      );
      expect(response.headers.get('access-control-max-age')).to.equal('86400');
    });

    it('exposes the spec headers on real responses', async () => {
      const response = await request('/v1/projects', {
        key: unscoped.key,
        headers: { origin: 'https://app.example.com' },
      });
      expect(response.headers.get('access-control-expose-headers')).to.equal(
        'X-Correlation-ID, X-CSRF-Token, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Idempotency-Key, X-Idempotency-Replay, ETag, X-Poll-Interval, Retry-After, Location, Link',
      );
    });
  });
});
