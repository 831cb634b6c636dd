/**
 * The gateway against the real lookup service (fresh database), with real RabbitMQ (fresh vhost)
 * carrying lookup's api_key.revoked events through kit's outbox relay, as in the fleet.
 */
import { expect } from 'chai';
import { createServiceClient, startOutboxRelay, type OutboxRelay, type ServiceClient } from '@tix/kit';
import { createTestVhost, eventually, testLogger, type TestVhost } from '@tix/kit/testing';
import { startTestLookupServer, type TestLookupServer } from '@tix/lookup-service/testing';
import { startRevocationListener, type RevocationListener } from '../../src/auth/revocation-listener.js';
import { bearer, request, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { FIELD_SCHEMA } from '../support/fake-lookup.js';

const DEFAULT_STATUSES = [
  { slug: 'open', label: 'Open', is_closed: false, position: 0 },
  { slug: 'work_in_progress', label: 'Work in progress', is_closed: false, position: 1 },
  { slug: 'waiting', label: 'Waiting', is_closed: false, position: 2 },
  { slug: 'closed', label: 'Closed', is_closed: true, position: 3 },
];
const PASSWORD = 'a long enough password 42';

describe('gateway + real lookup service (fresh database, RabbitMQ vhost)', function () {
  this.timeout(60_000);
  let lookup: TestLookupServer;
  let admin: ServiceClient<'lookup'>;
  let vhost: TestVhost;
  let relay: OutboxRelay;
  let gateway: TestGateway;
  let listener: RevocationListener;
  const revokedKeyIds: number[] = [];
  const keys: Record<'full' | 'scoped' | 'commentsOnly' | 'revocable', { id: number; key: string }> =
    {} as never;
  const ids: { alpha: number; beta: number; admin: number; agent: number; bug: number } = {} as never;

  before(async () => {
    lookup = await startTestLookupServer({ label: 'gateway' });
    admin = createServiceClient('lookup', lookup.address, { deadlineMs: 10_000 });
    vhost = await createTestVhost('gateway_real_lookup');
    relay = startOutboxRelay({
      connectionString: lookup.databaseUrl,
      amqpUrl: vhost.url,
      logger: testLogger(),
    });

    const alpha = await admin.CreateProject({
      name: 'Alpha',
      slug: 'alpha',
      prefix: 'ALP',
      description: 'First',
    });
    const beta = await admin.CreateProject({ name: 'Beta', slug: 'beta', prefix: 'BET', description: '' });
    const bug = await admin.CreateTicketType({
      project_slug: 'alpha',
      name: 'Bug',
      slug: 'bug',
      description: 'Broken things',
      is_default: true,
      field_schema_json: JSON.stringify(FIELD_SCHEMA),
    });
    const adminUser = await admin.CreateUser({
      name: 'Ada Admin',
      email: 'ada@example.com',
      role: 'admin',
      password: PASSWORD,
    });
    const agent = await admin.CreateUser({ name: 'Al Agent', email: 'al@example.com', role: 'agent' });
    Object.assign(ids, { alpha: alpha.id, beta: beta.id, admin: adminUser.id, agent: agent.id, bug: bug.id });
    const key = async (scopes: string[], project_slug?: string) => {
      const created = await admin.CreateApiKey({
        user_email: 'ada@example.com',
        scopes,
        name: `key ${scopes.join(' ')} ${project_slug ?? ''}`,
        ...(project_slug ? { project_slug } : {}),
      });
      return { id: created.id, key: created.key };
    };
    keys.full = await key([
      'tickets:read',
      'tickets:write',
      'tickets:delete',
      'comments:read',
      'comments:write',
    ]);
    keys.scoped = await key(['tickets:read'], 'beta');
    keys.commentsOnly = await key(['comments:read']);
    keys.revocable = await key(['tickets:read']);

    gateway = await startTestGateway({ services: { lookup: lookup.address }, authCacheTtlMs: 600_000 });
    listener = startRevocationListener({
      amqpUrl: vhost.url,
      logger: testLogger(),
      onRevoked: (revocation) => {
        if (revocation.kind !== 'api_key') return;
        revokedKeyIds.push(revocation.keyId);
        gateway.apiKeys.evictKey(revocation.keyId);
      },
      onConnectionChange: (connected) => gateway.apiKeys.setRevocationFeedConnected(connected),
    });
    await eventually(() => listener.isConnected());
  });

  after(async () => {
    await listener?.stop();
    await gateway?.close();
    await relay?.stop();
    admin?.close();
    await lookup?.stop();
    await vhost?.drop();
  });

  const get = (path: string, key: string) => request(`${gateway.apiUrl}${path}`, { headers: bearer(key) });

  it('GET /v1/projects lists projects with their workflow; a scoped key sees only its own', async () => {
    const alpha = {
      id: ids.alpha,
      name: 'Alpha',
      slug: 'alpha',
      description: 'First',
      prefix: 'ALP',
      statuses: DEFAULT_STATUSES,
    };
    const beta = {
      id: ids.beta,
      name: 'Beta',
      slug: 'beta',
      description: '',
      prefix: 'BET',
      statuses: DEFAULT_STATUSES,
    };
    const all = await get('/v1/projects', keys.full.key);
    expect(all.body).to.deep.equal({ ok: true, data: { projects: [alpha, beta], count: 2 } });
    const scoped = await get('/v1/projects', keys.scoped.key);
    expect(scoped.body).to.deep.equal({ ok: true, data: { projects: [beta], count: 1 } });
  });

  it('GET /v1/ticket-types by slug, id, or scope', async () => {
    const bug = {
      id: ids.bug,
      name: 'Bug',
      slug: 'bug',
      description: 'Broken things',
      is_default: true,
      field_schema: FIELD_SCHEMA,
      retired_at: null,
    };
    for (const query of ['project=alpha', `project_id=${ids.alpha}`]) {
      expect((await get(`/v1/ticket-types?${query}`, keys.full.key)).body).to.deep.equal({
        ok: true,
        data: { ticket_types: [bug], count: 1 },
      });
    }
    expect((await get('/v1/ticket-types', keys.scoped.key)).body).to.deep.equal({
      ok: true,
      data: { ticket_types: [], count: 0 },
    });
  });

  it('answers the project-context and scope errors', async () => {
    const cases: [string, string, number, string][] = [
      ['/v1/ticket-types', keys.full.key, 400, 'Project ID is required.'],
      ['/v1/ticket-types?project=nope', keys.full.key, 404, 'Project not found'],
      ['/v1/ticket-types?project_id=999999', keys.full.key, 404, 'Project not found'],
      [`/v1/ticket-types?project_id=${ids.alpha}`, keys.scoped.key, 404, 'Project not found'],
      ['/v1/ticket-types?project=alpha', keys.commentsOnly.key, 403, 'Missing required scope: tickets:read'],
      ['/v1/users', keys.commentsOnly.key, 403, 'Missing required scope: tickets:read'],
    ];
    for (const [path, key, status, message] of cases) {
      const response = await get(path, key);
      expect(response.body, path).to.deep.equal({ ok: false, error: { code: status, message } });
    }
  });

  it('refuses unknown and mistyped keys with 401 Invalid API key', async () => {
    const mistyped = `${keys.full.key.slice(0, -1)}${keys.full.key.endsWith('A') ? 'B' : 'A'}`;
    for (const key of [mistyped, 'tix_not_a_real_key_at_all']) {
      expect((await get('/v1/projects', key)).body).to.deep.equal({
        ok: false,
        error: { code: 401, message: 'Invalid API key' },
      });
    }
  });

  it("GET /v1/users lists the users, the assistant's system user marked is_system", async () => {
    const response = await get('/v1/users', keys.full.key);
    const listed = response.body.data.users as { email: string; id: number }[];
    const assistant = listed.find((user) => user.email === 'ai@tix.invalid');
    const mail = listed.find((user) => user.email === 'mail@tix.invalid');
    expect(response.body).to.deep.equal({
      ok: true,
      data: {
        users: [
          {
            id: assistant?.id,
            name: 'Tix AI',
            email: 'ai@tix.invalid',
            role: 'agent',
            is_active: true,
            is_system: true,
          },
          {
            id: mail?.id,
            name: 'Tix Mail',
            email: 'mail@tix.invalid',
            role: 'agent',
            is_active: true,
            is_system: true,
          },
          {
            id: ids.admin,
            name: 'Ada Admin',
            email: 'ada@example.com',
            role: 'admin',
            is_active: true,
            is_system: false,
          },
          {
            id: ids.agent,
            name: 'Al Agent',
            email: 'al@example.com',
            role: 'agent',
            is_active: true,
            is_system: false,
          },
        ],
        count: 4,
      },
    });
  });

  it('signs a browser in with a real password', async () => {
    const csrf = await request(`${gateway.appUrl}/api/csrf-token`);
    const cookie = csrf.headers.get('set-cookie')!.split(';')[0]!;
    const post = (password: string) =>
      request(`${gateway.appUrl}/api/auth/login`, {
        method: 'POST',
        headers: { Cookie: cookie, 'Content-Type': 'application/json', 'X-CSRF-Token': csrf.body.data.token },
        body: JSON.stringify({ email: 'ada@example.com', password }),
      });
    expect((await post('wrong password here')).body).to.deep.equal({
      ok: false,
      error: { code: 401, message: 'Invalid email or password' },
    });
    const login = await post(PASSWORD);
    expect(login.status).to.equal(200);
    const session = login.headers.get('set-cookie')!.split(';')[0]!;
    const me = await request(`${gateway.appUrl}/api/auth/me`, { headers: { Cookie: session } });
    expect(me.body.data.user).to.deep.equal({
      id: ids.admin,
      name: 'Ada Admin',
      email: 'ada@example.com',
      role: 'admin',
      is_active: true,
      is_system: false,
    });
    expect(me.body.data.allowed_operations).to.include.members(['updateGuardrails', 'listApiKeys']);
  });

  it('refuses a revoked key soon after lookup emits api_key.revoked (cache evicted, TTL notwithstanding)', async () => {
    expect((await get('/v1/users', keys.revocable.key)).status).to.equal(200);
    expect(gateway.apiKeys.cachedCount).to.be.greaterThan(0);
    await admin.RevokeApiKey({ id: keys.revocable.id });
    const refused = await eventually(async () => {
      const response = await get('/v1/users', keys.revocable.key);
      return response.status === 401 ? response : undefined;
    }, 10_000);
    expect(refused.body).to.deep.equal({ ok: false, error: { code: 401, message: 'Invalid API key' } });
    expect(revokedKeyIds).to.deep.equal([keys.revocable.id]);
    // Other keys are untouched.
    expect((await get('/v1/users', keys.full.key)).status).to.equal(200);
  });

  it('/readyz reports the real lookup serving', async () => {
    const response = await request(`${gateway.apiUrl}/readyz`);
    expect(response.status).to.equal(200);
    expect(response.body.data.services.lookup).to.equal('serving');
  });
});
