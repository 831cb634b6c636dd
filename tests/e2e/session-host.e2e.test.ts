/**
 * The session host serves the v1 resources under `{app_url}/api` with the same declarations as the
 * API host: same validation, envelope and messages; a cookie session and CSRF instead of a key, and
 * the roles table instead of scopes (viewer reads; agent writes; team_lead also deletes tickets;
 * admin also manages webhooks). Signed in as each role through the real fleet, with a cookie jar.
 */
import { expect } from 'chai';
import { expectError } from '@tix/kit/testing';
import {
  createComment,
  createKey,
  createProject,
  createTicket,
  createTicketType,
  createUser,
  type ProjectFixture,
  type Role,
} from '../support/fixtures.js';
import { request } from '../support/http.js';
import { appUrl, signIn, type BrowserSession } from '../support/session.js';

const PASSWORD = 'correct horse battery staple';
const NOT_SIGNED_IN = 'Not signed in';

function roleRefusal(role: Role, needed: Role): string {
  return `Your role (${role}) does not allow this; it needs ${needed} or higher`;
}

describe('the session host: v1 resources by role', function () {
  this.timeout(60_000);
  let project: ProjectFixture;
  let typeId: number;
  const as = {} as Record<Role, BrowserSession>;
  /** `?project=<slug>`: a session has no key scope, so every project request names its project. */
  let inProject: string;

  before(async () => {
    project = await createProject();
    typeId = (await createTicketType(project.slug)).id;
    inProject = `project=${project.slug}`;
    for (const role of ['viewer', 'agent', 'team_lead', 'admin'] as const) {
      const user = await createUser(role, { password: PASSWORD });
      as[role] = await signIn(user.email, PASSWORD);
    }
  });

  const newTicket = async (session: BrowserSession, title = 'Printer on fire'): Promise<number> => {
    const response = await session.call('POST', `/tickets?${inProject}`, { ticket_type_id: typeId, title });
    expect(response.status, response.text).to.equal(201);
    return response.body.data.ticket.id as number;
  };

  describe('without a signed-in session', () => {
    it('answers 401 Not signed in on every resource, unknown paths included', async () => {
      for (const [method, path] of [
        ['GET', `/tickets?${inProject}`],
        ['GET', '/projects'],
        ['POST', `/tickets?${inProject}`],
        ['GET', '/no-such-thing'],
        ['DELETE', '/webhooks/1'],
      ]) {
        expectError(await request(`/api${path!}`, { host: 'app', method: method! }), 401, NOT_SIGNED_IN);
      }
    });

    it('still serves what signing in needs: the CSRF token and the API description', async () => {
      expect((await request('/api/csrf-token', { host: 'app' })).status).to.equal(200);
      expect((await request('/api/openapi', { host: 'app' })).status).to.equal(200);
    });
  });

  describe('viewer: reads only', () => {
    let ticket: number;
    before(async () => {
      ticket = await newTicket(as.agent);
    });

    it('reads projects, ticket types, users, tickets, the board and comments', async () => {
      const viewer = as.viewer;
      const projects = await viewer.call('GET', '/projects');
      expect(projects.status, projects.text).to.equal(200);
      expect(projects.body.data.projects.map((each: { slug: string }) => each.slug)).to.include(project.slug);
      for (const path of [
        `/ticket-types?${inProject}`,
        `/users`,
        `/tickets?${inProject}`,
        `/tickets/${ticket}?${inProject}`,
        `/board?${inProject}`,
        `/tickets/${ticket}/comments?${inProject}`,
        `/tickets/${ticket}/attachments?${inProject}`,
      ]) {
        const response = await viewer.call('GET', path);
        expect(response.status, `${path}: ${response.text}`).to.equal(200);
      }
    });

    it('is refused every write with 403, before anything is written', async () => {
      const viewer = as.viewer;
      for (const [method, path, body] of [
        ['POST', `/tickets?${inProject}`, { ticket_type_id: typeId, title: 'x' }],
        ['PUT', `/tickets/${ticket}?${inProject}`, { title: 'Renamed' }],
        ['PATCH', `/tickets/${ticket}/status?${inProject}`, { status: 'closed' }],
        ['POST', `/tickets/bulk-update?${inProject}`, { ticket_ids: [ticket], priority: 'low' }],
        ['POST', `/tickets/${ticket}/comments?${inProject}`, { content: 'Hello' }],
      ] as const) {
        expectError(await viewer.call(method, path, body), 403, roleRefusal('viewer', 'agent'));
      }
      expectError(
        await viewer.call('DELETE', `/tickets/${ticket}?${inProject}`),
        403,
        roleRefusal('viewer', 'team_lead'),
      );
      const unchanged = await as.viewer.call('GET', `/tickets/${ticket}?${inProject}`);
      expect(unchanged.body.data.ticket).to.include({ title: 'Printer on fire', version: 1 });
    });
  });

  describe('agent: works tickets', () => {
    it('creates, updates, moves, comments and uploads, with the same envelope as /v1', async () => {
      const agent = as.agent;
      const ticket = await newTicket(agent);
      const updated = await agent.call('PUT', `/tickets/${ticket}?${inProject}`, {
        priority: 'high',
        version: 1,
      });
      expect(updated.status, updated.text).to.equal(200);
      expect(updated.body.data.ticket).to.include({ priority: 'high', version: 2 });
      const moved = await agent.call('PATCH', `/tickets/${ticket}/status?${inProject}`, {
        status: 'work_in_progress',
      });
      expect(moved.status, moved.text).to.equal(200);
      const comment = await agent.call('POST', `/tickets/${ticket}/comments?${inProject}`, {
        content: 'On it',
      });
      expect(comment.status, comment.text).to.equal(201);
      expect(comment.body.data.comment).to.include({ user_id: agent.user.id, is_internal: true });

      const form = new FormData();
      form.append('file', new Blob([Buffer.from('log line\n')], { type: 'text/plain' }), 'error.log');
      const upload = await fetch(`${appUrl()}/api/tickets/${ticket}/attachments?${inProject}`, {
        method: 'POST',
        headers: agent.headers(),
        body: form,
      });
      expect(upload.status, await upload.clone().text()).to.equal(201);
    });

    it('gets the same validation answers as the API host', async () => {
      const body = { ticket_type_id: typeId, title: '' };
      const onSession = await as.agent.call('POST', `/tickets?${inProject}`, body);
      const key = await createKey({ project: project.slug });
      const onApi = await request('/v1/tickets', { method: 'POST', key: key.key, body });
      expect(onSession.status).to.equal(422);
      expect(onSession.body).to.deep.equal(onApi.body);
    });

    it('names the project on every project request (400 Project ID is required.)', async () => {
      expectError(await as.agent.call('GET', '/tickets'), 400, 'Project ID is required.');
    });

    it('may not delete tickets or reach webhooks', async () => {
      const ticket = await newTicket(as.agent);
      expectError(
        await as.agent.call('DELETE', `/tickets/${ticket}?${inProject}`),
        403,
        roleRefusal('agent', 'team_lead'),
      );
      expectError(await as.agent.call('GET', `/webhooks?${inProject}`), 403, roleRefusal('agent', 'admin'));
    });

    it('is refused a write without the CSRF token', async () => {
      const response = await as.agent.call(
        'POST',
        `/tickets?${inProject}`,
        { ticket_type_id: typeId, title: 'No token' },
        { csrf: false },
      );
      expectError(response, 403, 'Invalid CSRF token');
    });

    it('replays a POST with the same Idempotency-Key (scoped to the signed-in user)', async () => {
      const body = { ticket_type_id: typeId, title: 'Once only' };
      const headers = { 'idempotency-key': `session-${Date.now()}` };
      const first = await as.agent.call('POST', `/tickets?${inProject}`, body, { headers });
      const again = await as.agent.call('POST', `/tickets?${inProject}`, body, { headers });
      expect(first.status, first.text).to.equal(201);
      expect(again.status).to.equal(201);
      expect(again.headers.get('x-idempotency-replay')).to.equal('true');
      expect(again.body.data.ticket.id).to.equal(first.body.data.ticket.id);
    });
  });

  describe('team_lead and admin', () => {
    it("team_lead deletes tickets and edits others' comments, but may not delete them", async () => {
      const ticket = await newTicket(as.agent);
      const comment = await as.agent.call('POST', `/tickets/${ticket}/comments?${inProject}`, {
        content: 'Mine',
      });
      const commentId = comment.body.data.comment.id as number;
      const edited = await as.team_lead.call('PUT', `/comments/${commentId}?${inProject}`, {
        content: 'Edited',
      });
      expect(edited.status, edited.text).to.equal(200);
      expect((await as.team_lead.call('DELETE', `/comments/${commentId}?${inProject}`)).status).to.equal(403);
      const deleted = await as.team_lead.call('DELETE', `/tickets/${ticket}?${inProject}`);
      expect(deleted.status, deleted.text).to.equal(200);
      expectError(
        await as.team_lead.call('GET', `/webhooks?${inProject}`),
        403,
        roleRefusal('team_lead', 'admin'),
      );
    });

    it("admin manages webhooks and deletes others' comments", async () => {
      const admin = as.admin;
      const created = await admin.call('POST', `/webhooks?${inProject}`, {
        url: 'http://127.0.0.1:9/hook',
        events: ['ticket.created'],
        project_id: project.id,
      });
      expect(created.status, created.text).to.equal(201);
      const listed = await admin.call('GET', `/webhooks?${inProject}`);
      expect(listed.body.data.webhooks.map((hook: { id: number }) => hook.id)).to.include(
        created.body.data.webhook.id,
      );
      const removed = await admin.call('DELETE', `/webhooks/${created.body.data.webhook.id}?${inProject}`);
      expect(removed.status, removed.text).to.equal(200);

      const ticket = await newTicket(as.agent);
      const comment = await createComment(await agentKey(), ticket, { content: 'To be removed' });
      const gone = await admin.call('DELETE', `/comments/${comment.id as number}?${inProject}`);
      expect(gone.status, gone.text).to.equal(200);
    });
  });

  describe("webhooks: an admin manages every owner's", () => {
    it("lists them on request (owner=all) and deletes another user's; others see only their own", async () => {
      const agentKey = await createKey({ project: project.slug, role: 'agent' });
      const hook = await request('/v1/webhooks', {
        method: 'POST',
        key: agentKey.key,
        body: { url: 'http://127.0.0.1:9/agent-hook', events: ['ticket.created'], project_id: project.id },
      });
      expect(hook.status, hook.text).to.equal(201);
      const hookId = hook.body.data.webhook.id as number;
      const own = await as.admin.call('GET', `/webhooks?${inProject}`);
      expect(own.body.data.webhooks.map((each: { id: number }) => each.id)).to.not.include(hookId);
      const every = await as.admin.call('GET', `/webhooks?${inProject}&owner=all`);
      expect(every.status, every.text).to.equal(200);
      expect(every.body.data.webhooks.map((each: { id: number }) => each.id)).to.include(hookId);
      expectError(
        await request('/v1/webhooks?owner=all', { key: agentKey.key }),
        403,
        "Only an admin can list every owner's webhooks",
      );
      const deleted = await as.admin.call('DELETE', `/webhooks/${hookId}?${inProject}`);
      expect(deleted.status, deleted.text).to.equal(200);
      const after = await request('/v1/webhooks', { key: agentKey.key });
      expect(after.body.data.webhooks).to.deep.equal([]);
    });
  });

  describe('API keys in the account settings (admins)', () => {
    it('an admin creates a key for a user, shown once; it works on /v1; the list never shows it; revoking ends it at once', async () => {
      const created = await as.admin.call('POST', '/api-keys', {
        name: 'Zapier',
        scopes: ['tickets:read', 'tickets:write'],
        user_id: as.agent.user.id,
        project_id: project.id,
      });
      expect(created.status, created.text).to.equal(201);
      const { api_key: apiKey, key } = created.body.data as { api_key: Record<string, unknown>; key: string };
      expect(apiKey).to.deep.include({
        name: 'Zapier',
        scopes: ['tickets:read', 'tickets:write'],
        user_id: as.agent.user.id,
        project_id: project.id,
        last_used_at: null,
        revoked_at: null,
      });
      expect(key.startsWith(apiKey.prefix as string)).to.equal(true);

      const onApi = await request('/v1/tickets', {
        method: 'POST',
        key,
        body: { ticket_type_id: typeId, title: 'Via key' },
      });
      expect(onApi.status, onApi.text).to.equal(201);

      const listed = await as.admin.call('GET', `/api-keys?user_id=${as.agent.user.id}`);
      expect(listed.status, listed.text).to.equal(200);
      expect(listed.body.data.api_keys.map((each: { id: number }) => each.id)).to.include(apiKey.id);
      expect(listed.text).to.not.contain(key);

      const revoked = await as.admin.call('DELETE', `/api-keys/${apiKey.id as number}`);
      expect(revoked.status, revoked.text).to.equal(200);
      expect(revoked.body.data.message).to.equal('API key revoked');
      expectError(await request('/v1/tickets', { key }), 401, 'Invalid API key');
    });

    it('refuses non-admins (403), unknown scopes and users (422/404), and bad ids (400)', async () => {
      expectError(await as.team_lead.call('GET', '/api-keys'), 403, roleRefusal('team_lead', 'admin'));
      const badScope = await as.admin.call('POST', '/api-keys', {
        name: 'x',
        scopes: ['tickets:everything'],
        user_id: as.agent.user.id,
      });
      expect(badScope.status, badScope.text).to.equal(422);
      expect(Object.keys(badScope.body.error!.validation_errors!)[0]).to.match(/^scopes/);
      expect((await as.admin.call('GET', '/api-keys?user_id=2147483000')).status).to.equal(404);
      expectError(await as.admin.call('DELETE', '/api-keys/abc'), 400, 'Invalid API key id');
    });
  });

  describe('projects and ticket types (admins)', () => {
    it('an admin creates a project with its workflow and a ticket type; agents then work in it', async () => {
      const slug = `admin-made-${Date.now()}`;
      const project = await as.admin.call('POST', '/projects', {
        name: 'Made by an admin',
        slug,
        prefix: `AM${String(Date.now()).slice(-4)}`,
        statuses: [
          { slug: 'new', label: 'New' },
          { slug: 'done', label: 'Done', is_closed: true },
        ],
      });
      expect(project.status, project.text).to.equal(201);
      expect(project.body.data.project.statuses.map((status: { slug: string }) => status.slug)).to.deep.equal(
        ['new', 'done'],
      );
      const type = await as.admin.call('POST', `/ticket-types?project=${slug}`, {
        name: 'Bug',
        slug: 'bug',
        is_default: true,
        field_schema: [
          {
            name: 'severity',
            label: 'Severity',
            type: 'select',
            required: true,
            constraints: { allowed_values: ['low', 'high'] },
          },
        ],
      });
      expect(type.status, type.text).to.equal(201);
      const ticket = await as.agent.call('POST', `/tickets?project=${slug}`, {
        ticket_type_id: type.body.data.ticket_type.id,
        title: 'In the new project',
        custom_fields: { severity: 'high' },
      });
      expect(ticket.status, ticket.text).to.equal(201);
      expect(ticket.body.data.ticket).to.include({ status: 'new' });

      expectError(
        await as.agent.call('POST', '/projects', { name: 'x', slug: 'x-agent', prefix: 'XA' }),
        403,
        roleRefusal('agent', 'admin'),
      );
      const invalid = await as.admin.call('POST', `/ticket-types?project=${slug}`, {
        name: 'Broken',
        slug: 'broken',
        field_schema: [{ name: 'x', type: 'no-such-type' }],
      });
      expect(invalid.status, invalid.text).to.equal(422);
    });
  });

  describe('users and accounts', () => {
    it("deactivating a user refuses the user's sessions and API keys at once", async () => {
      const user = await createUser('agent', { password: PASSWORD });
      const browser = await signIn(user.email, PASSWORD);
      const created = await as.admin.call('POST', '/api-keys', {
        name: 'Soon gone',
        scopes: ['tickets:read'],
        user_id: user.id,
      });
      const key = created.body.data.key as string;
      expect((await request('/v1/projects', { key })).status).to.equal(200);
      expect((await browser.call('GET', '/projects')).status).to.equal(200);

      const deactivated = await as.admin.call('PATCH', `/users/${user.id}`, { is_active: false });
      expect(deactivated.status, deactivated.text).to.equal(200);
      expect(deactivated.body.data.user).to.include({ id: user.id, is_active: false });
      expectError(await browser.call('GET', '/projects'), 401, NOT_SIGNED_IN);
      expectError(await request('/v1/projects', { key }), 401, 'Invalid API key');
      // Signing in again is refused with the one answer every failed sign-in gets.
      const start = await request('/api/csrf-token', { host: 'app' });
      const again = await request('/api/auth/login', {
        host: 'app',
        method: 'POST',
        body: { email: user.email, password: PASSWORD },
        headers: {
          cookie: start.headers.get('set-cookie')!.split(';')[0]!,
          'x-csrf-token': start.body.data.token as string,
        },
      });
      expectError(again, 401, 'Invalid email or password');
    });

    it("a role change ends the user's sessions; signing in again gives the new role", async () => {
      const user = await createUser('agent', { password: PASSWORD });
      const before = await signIn(user.email, PASSWORD);
      // A name change, or the role the user already has, is no reason to sign them out.
      const renamed = await as.admin.call('PATCH', `/users/${user.id}`, { name: 'Renamed', role: 'agent' });
      expect(renamed.status, renamed.text).to.equal(200);
      expect((await before.call('GET', '/projects')).status).to.equal(200);
      const changed = await as.admin.call('PATCH', `/users/${user.id}`, { role: 'viewer' });
      expect(changed.status, changed.text).to.equal(200);
      expectError(await before.call('GET', '/projects'), 401, NOT_SIGNED_IN);
      const after = await signIn(user.email, PASSWORD);
      expect(after.user.role).to.equal('viewer');
      expectError(
        await after.call('POST', `/tickets?${inProject}`, { ticket_type_id: typeId, title: 'x' }),
        403,
        roleRefusal('viewer', 'agent'),
      );
    });

    it('changing your password needs the current one, ends your other sessions and renews this one', async () => {
      const user = await createUser('agent', { password: PASSWORD });
      const here = await signIn(user.email, PASSWORD);
      const elsewhere = await signIn(user.email, PASSWORD);
      const wrong = await here.call('PUT', '/me/password', {
        current_password: 'not it at all',
        new_password: 'a brand new passphrase',
      });
      expect(wrong.status, wrong.text).to.equal(422);
      expect(Object.keys(wrong.body.error!.validation_errors!)).to.deep.equal(['current_password']);

      const changed = await here.call('PUT', '/me/password', {
        current_password: PASSWORD,
        new_password: 'a brand new passphrase',
      });
      expect(changed.status, changed.text).to.equal(200);
      expectError(await elsewhere.call('GET', '/projects'), 401, NOT_SIGNED_IN);
      // The old cookie of this browser ended too: the response carried its renewed session.
      expectError(await here.call('GET', '/projects'), 401, NOT_SIGNED_IN);
      const cookie = changed.headers.get('set-cookie')!.split(';')[0]!;
      const renewed = await request('/api/projects', { host: 'app', headers: { cookie } });
      expect(renewed.status, renewed.text).to.equal(200);
      const signedIn = await signIn(user.email, 'a brand new passphrase');
      expect(signedIn.user.id).to.equal(user.id);
    });

    it('a user changes their own name; only an admin changes roles or creates users', async () => {
      const renamed = await as.agent.call('PATCH', '/me', { name: 'Agent Smith' });
      expect(renamed.status, renamed.text).to.equal(200);
      expect(renamed.body.data.user.name).to.equal('Agent Smith');
      expectError(
        await as.agent.call('PATCH', `/users/${as.agent.user.id}`, { role: 'admin' }),
        403,
        roleRefusal('agent', 'admin'),
      );
      const created = await as.admin.call('POST', '/users', {
        name: 'New Hire',
        email: `new-hire-${Date.now()}@example.com`,
        role: 'agent',
        password: PASSWORD,
      });
      expect(created.status, created.text).to.equal(201);
      expect(created.body.data.user).to.include({ name: 'New Hire', role: 'agent', is_active: true });
    });
  });

  /** An API key of the signed-in agent, to arrange data through /v1 (the two hosts share it). */
  async function agentKey(): Promise<string> {
    const key = await createKey({ project: project.slug, role: 'agent' });
    return key.key;
  }
});

describe('API keys never exceed their owner', function () {
  this.timeout(30_000);

  it("a viewer's key with tickets:write reads, and is refused every write with 403", async () => {
    const project = await createProject();
    const type = await createTicketType(project.slug);
    const viewerKey = await createKey({
      project: project.slug,
      role: 'viewer',
      scopes: 'tickets:read,tickets:write,tickets:delete,comments:read,comments:write',
    });
    expect((await request('/v1/tickets', { key: viewerKey.key })).status).to.equal(200);
    expectError(
      await request('/v1/tickets', {
        method: 'POST',
        key: viewerKey.key,
        body: { ticket_type_id: type.id, title: 'x' },
      }),
      403,
      "The key's owner has the viewer role, which does not allow tickets:write",
    );
    const agentKey = await createKey({ project: project.slug, role: 'agent' });
    const ticket = await createTicket(agentKey.key, { ticket_type_id: type.id, title: 'Kept' });
    expectError(
      await request(`/v1/tickets/${ticket.id as number}`, { method: 'DELETE', key: viewerKey.key }),
      403,
      "The key's owner has the viewer role, which does not allow tickets:delete",
    );
    expectError(
      await request(`/v1/tickets/${ticket.id as number}/comments`, {
        method: 'POST',
        key: viewerKey.key,
        body: { content: 'x' },
      }),
      403,
      "The key's owner has the viewer role, which does not allow comments:write",
    );
  });
});
