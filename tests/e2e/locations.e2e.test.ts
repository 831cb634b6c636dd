/**
 * `Location` on every 201 through the fleet: each creation names a path of the host
 * that served it, and GET there answers the same resource with a strong ETag. Tickets, comments and
 * attachments are in conditional-requests.e2e.test.ts; here are the rest: a webhook on the API host,
 * and the session host admin's users, projects (and a status added to one: the project), ticket types
 * and API keys, with the single reads they name (GET /projects/{id}, /ticket-types/{id}, /users/{id}
 * on both hosts, GET /api/api-keys/{id}).
 */
import { expect } from 'chai';
import { createKey, createProject, createUser, unique, type ProjectFixture } from '../support/fixtures.js';
import { request, type ApiResponse } from '../support/http.js';
import { signIn, type BrowserSession } from '../support/session.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const PASSWORD = 'locations passphrase 17';

describe('Location on every 201', function () {
  this.timeout(60_000);
  let admin: BrowserSession;
  let viewer: BrowserSession;

  before(async () => {
    admin = await signIn((await createUser('admin', { password: PASSWORD })).email, PASSWORD);
    viewer = await signIn((await createUser('viewer', { password: PASSWORD })).email, PASSWORD);
  });

  /** GETs a Location on the session host as `session` (with an optional query, e.g. the project). */
  const follow = (location: string, session: BrowserSession = admin, query = '') =>
    request(`${location}${query}`, { host: 'app', headers: session.headers() });

  /** The 201's Location, asserted to be `expected`. */
  function locationOf(created: ApiResponse, expected: string): string {
    expect(created.status, created.text).to.equal(201);
    const location = created.headers.get('location');
    expect(location).to.equal(expected);
    return location!;
  }

  /** A GET of a single resource: 200, tagged, and 304 when If-None-Match names the tag. */
  async function expectTagged(response: ApiResponse, revalidate: (etag: string) => Promise<ApiResponse>) {
    expect(response.status, response.text).to.equal(200);
    const etag = response.headers.get('etag');
    expect(etag).to.match(/^"d[A-Za-z0-9_-]+"$/);
    expect(response.headers.get('cache-control')).to.equal('private, no-cache');
    const again = await revalidate(etag!);
    expect(again.status).to.equal(304);
    expect(again.text).to.equal('');
  }

  describe('the API host', () => {
    let project: ProjectFixture;
    let key: string;
    let receiver: WebhookReceiver;

    before(async () => {
      project = await createProject();
      key = (await createKey({ project: project.slug, scopes: 'tickets:read,tickets:write' })).key;
      receiver = await startWebhookReceiver();
    });
    after(() => receiver.close());

    it('POST /v1/webhooks names /v1/webhooks/{id}, which answers the subscription (without its secret)', async () => {
      const created = await request('/v1/webhooks', {
        method: 'POST',
        key,
        body: { url: receiver.url, events: ['ticket.created'], project_id: project.id },
      });
      const webhook = created.body.data.webhook as { id: number; secret?: string } & Record<string, unknown>;
      const location = locationOf(created, `/v1/webhooks/${webhook.id}`);
      const fetched = await request(location, { key });
      expect(fetched.status, fetched.text).to.equal(200);
      const { secret, ...shown } = webhook;
      expect(secret).to.be.a('string');
      expect(fetched.body.data.webhook).to.deep.include(shown);
      expect(fetched.body.data.webhook).to.not.have.property('secret');
    });

    it('GET /v1/projects/{id}: the key’s own project, tagged; another project is 404 to a scoped key', async () => {
      const response = await request(`/v1/projects/${project.id}`, { key });
      await expectTagged(response, (etag) =>
        request(`/v1/projects/${project.id}`, { key, headers: { 'if-none-match': etag } }),
      );
      expect(response.body.data.project).to.deep.include({ id: project.id, slug: project.slug });
      const other = await createProject();
      const refused = await request(`/v1/projects/${other.id}`, { key });
      expect(refused.status).to.equal(404);
      expect(refused.body.error).to.deep.equal({ code: 404, message: 'Project not found' });
      const bad = await request('/v1/projects/abc', { key });
      expect(bad.status).to.equal(400);
      expect(bad.body.error!.message).to.equal('Invalid project id');
    });
  });

  describe('the session host (an admin)', () => {
    it('POST /api/users names /api/users/{id}: the same user, on both hosts', async () => {
      const email = `${unique('located')}@example.com`;
      const created = await admin.call('POST', '/users', { name: 'Located User', email, role: 'agent' });
      const user = created.body.data.user as { id: number };
      const location = locationOf(created, `/api/users/${user.id}`);
      const fetched = await follow(location);
      await expectTagged(fetched, (etag) =>
        request(location, { host: 'app', headers: { ...admin.headers(), 'if-none-match': etag } }),
      );
      expect(fetched.body.data.user).to.deep.equal(user);
      // Any viewer may look a user up, and a key with tickets:read on the API host.
      expect((await follow(location, viewer)).body.data.user).to.deep.equal(user);
      const { key } = await createKey({ scopes: 'tickets:read' });
      expect((await request(`/v1/users/${user.id}`, { key })).body.data.user).to.deep.equal(user);
      const absent = await request('/v1/users/2147483647', { key });
      expect(absent.status).to.equal(404);
      expect(absent.body.error).to.deep.equal({ code: 404, message: 'User not found' });
    });

    it('POST /api/projects names /api/projects/{id}; adding a status names the project too, as changed', async () => {
      const slug = unique('located-');
      const created = await admin.call('POST', '/projects', {
        name: 'Located project',
        slug,
        prefix: `L${slug.slice(-4).toUpperCase()}`,
      });
      const project = created.body.data.project as { id: number; statuses: { slug: string }[] };
      const location = locationOf(created, `/api/projects/${project.id}`);
      const fetched = await follow(location);
      await expectTagged(fetched, (etag) =>
        request(location, { host: 'app', headers: { ...admin.headers(), 'if-none-match': etag } }),
      );
      expect(fetched.body.data.project).to.deep.equal(project);

      const added = await admin.call('POST', `/projects/${project.id}/statuses`, {
        slug: 'in_review',
        label: 'In review',
        position: 1,
      });
      locationOf(added, location);
      const after = await follow(location, viewer);
      expect(after.status, after.text).to.equal(200);
      expect(after.body.data.project).to.deep.equal(added.body.data.project);
      expect(after.body.data.project.statuses.map((status: { slug: string }) => status.slug)).to.include(
        'in_review',
      );
      // The workflow changed, so the tag did too.
      expect(after.headers.get('etag')).to.not.equal(fetched.headers.get('etag'));
    });

    it('POST /api/ticket-types names /api/ticket-types/{id}, answered in the project context', async () => {
      const project = await createProject();
      const created = await admin.call('POST', `/ticket-types?project=${project.slug}`, {
        name: 'Located',
        slug: 'located',
      });
      const type = created.body.data.ticket_type as { id: number };
      const location = locationOf(created, `/api/ticket-types/${type.id}`);
      const inProject = `?project=${project.slug}`;
      const fetched = await follow(location, admin, inProject);
      await expectTagged(fetched, (etag) =>
        request(`${location}${inProject}`, {
          host: 'app',
          headers: { ...admin.headers(), 'if-none-match': etag },
        }),
      );
      expect(fetched.body.data.ticket_type).to.deep.equal(type);
      const { key } = await createKey({ project: project.slug, scopes: 'tickets:read' });
      expect((await request(`/v1/ticket-types/${type.id}`, { key })).body.data.ticket_type).to.deep.equal(
        type,
      );
      // Another project's type is not found there.
      const other = await createProject();
      const foreign = await follow(location, admin, `?project=${other.slug}`);
      expect(foreign.status).to.equal(404);
      expect(foreign.body.error).to.deep.equal({ code: 404, message: 'Ticket type not found' });
    });

    it('POST /api/api-keys names /api/api-keys/{id}: the key without its value, for admins only', async () => {
      const owner = await createUser('agent');
      const created = await admin.call('POST', '/api-keys', {
        name: unique('located'),
        scopes: ['tickets:read'],
        user_id: owner.id,
      });
      const apiKey = created.body.data.api_key as { id: number };
      expect(created.body.data.key).to.be.a('string');
      const location = locationOf(created, `/api/api-keys/${apiKey.id}`);
      const fetched = await follow(location);
      await expectTagged(fetched, (etag) =>
        request(location, { host: 'app', headers: { ...admin.headers(), 'if-none-match': etag } }),
      );
      expect(fetched.body.data.api_key).to.deep.equal(apiKey);
      expect(JSON.stringify(fetched.body)).to.not.include(created.body.data.key as string);
      expect((await follow(location, viewer)).status).to.equal(403);
      const absent = await follow('/api/api-keys/2147483647');
      expect(absent.status).to.equal(404);
      expect(absent.body.error).to.deep.equal({ code: 404, message: 'API key not found' });
    });
  });
});
