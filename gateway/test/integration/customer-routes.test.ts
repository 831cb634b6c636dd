/**
 * The customer and organization routes, and the requester and cc of ticket writes, over real HTTP on
 * both hosts, against fake lookup, ticket and customer services over real gRPC: what each route sends
 * (as the service decodes it), what it answers in the spec's envelope, the scopes on the API host and
 * the roles on the session host, and every refusal the gateway makes itself.
 */
import { expect } from 'chai';
import { AppError } from '@tix/kit';
import { expectError } from '@tix/kit/testing';
import type { lookup as lookupTypes } from '@tix/protos';
import { FULL_KEY, KEYS, USERS, startFakeLookup, type FakeLookup } from '../support/fake-lookup.js';
import {
  startFakeTickets,
  ticketsJsonBatch,
  ticketMessage,
  type FakeTickets,
} from '../support/fake-tickets.js';
import { startFakeCustomers, type FakeCustomers } from '../support/fake-customers.js';
import {
  bearer,
  request,
  sendJson,
  signedInBrowser,
  startTestGateway,
  type JsonResponse,
  type TestGateway,
} from '../support/test-gateway.js';

const ALL = [
  'tickets:read',
  'tickets:write',
  'tickets:delete',
  'comments:read',
  'comments:write',
  'customers:read',
  'customers:write',
];
const KEY = {
  admin: 'tix_customers_admin_0101',
  lead: 'tix_customers_lead_0102',
  agent: 'tix_customers_agent_0103',
  readOnly: 'tix_customers_read_0104',
};
const EXTRA_KEYS: Record<string, lookupTypes.ApiKeyPrincipal__Output> = {
  [KEY.admin]: { key_id: 101, user_id: 10, role: 'admin', scopes: ALL },
  [KEY.lead]: {
    key_id: 102,
    user_id: 13,
    role: 'team_lead',
    scopes: ALL.filter((s) => s !== 'tickets:delete'),
  },
  [KEY.agent]: {
    key_id: 103,
    user_id: 11,
    role: 'agent',
    scopes: ['tickets:read', 'tickets:write', 'customers:read', 'customers:write'],
  },
  [KEY.readOnly]: { key_id: 104, user_id: 11, role: 'agent', scopes: ['tickets:read', 'customers:read'] },
};
const PASSWORD = 'correct horse battery';
const SESSION_USERS: lookupTypes.User__Output[] = [
  ...USERS.map((user) => ({ ...user, is_active: true })),
  {
    id: 13,
    name: 'Lea Lead',
    email: 'lea@example.com',
    role: 'team_lead',
    is_active: true,
    is_system: false,
  },
];

describe('customer and organization routes, requester and cc on tickets (fakes over gRPC)', function () {
  this.timeout(20_000);
  let lookup: FakeLookup;
  let tickets: FakeTickets;
  let customers: FakeCustomers;
  let gateway: TestGateway;

  before(async () => {
    lookup = await startFakeLookup();
    tickets = await startFakeTickets();
    customers = await startFakeCustomers();
    gateway = await startTestGateway({
      services: { lookup: lookup.address, tickets: tickets.address, customers: customers.address },
    });
  });
  after(async () => {
    await gateway?.close();
    await customers?.stop();
    await tickets?.stop();
    await lookup?.stop();
  });
  beforeEach(() => {
    lookup.override('AuthenticateApiKey', (input: lookupTypes.AuthenticateApiKeyRequest__Output) => {
      const principal = EXTRA_KEYS[input.key] ?? KEYS[input.key];
      if (!principal) throw AppError.unauthenticated('API key is not valid');
      return principal;
    });
    lookup.override('AuthenticatePassword', (input: lookupTypes.AuthenticatePasswordRequest__Output) => {
      const user = SESSION_USERS.find((candidate) => candidate.email === input.email);
      if (!user || input.password !== PASSWORD) throw AppError.unauthenticated('Wrong credentials');
      return user;
    });
  });
  afterEach(() => {
    lookup.reset();
    tickets.reset();
    customers.reset();
  });

  const call = (method: string, path: string, body?: unknown, key = KEY.admin): Promise<JsonResponse> =>
    sendJson(`${gateway.apiUrl}/v1${path}`, method, bearer(key), body);

  describe('GET /v1/customers', () => {
    it('finds by email: { customers, count, pagination } in the envelope, without a project', async () => {
      const grace = customers.addCustomer({
        name: 'Grace',
        emails: ['grace@example.com'],
        organization_id: 3,
      });
      customers.addCustomer({ name: 'Ada', emails: ['ada@example.com'] });
      const response = await call('GET', '/customers?email=Grace@Example.com');
      expect(response.status, JSON.stringify(response.body)).to.equal(200);
      expect(response.body).to.deep.equal({
        ok: true,
        data: {
          customers: [
            {
              id: grace.id,
              name: 'Grace',
              emails: ['grace@example.com'],
              organization_id: 3,
              notes: '',
              created_at: grace.created_at,
              updated_at: grace.updated_at,
            },
          ],
          count: 1,
          pagination: { total: 1, page: 1, per_page: 50, total_pages: 1 },
        },
      });
      expect(customers.lastRequest.ListCustomers).to.deep.include({
        page: { page: 1, per_page: 50 },
        email: 'grace@example.com',
      });
      const none = await call('GET', '/customers?email=nobody@example.com');
      expect(none.body.data).to.deep.include({ customers: [], count: 0 });
    });

    it('passes q, organization_id and the page; Link names the neighbouring pages', async () => {
      for (let n = 0; n < 3; n++)
        customers.addCustomer({ emails: [`c${n}@example.com`], organization_id: 3 });
      const response = await call('GET', '/customers?q=example&organization_id=3&page=2&per_page=1');
      expect(response.status).to.equal(200);
      expect(response.body.data.count).to.equal(1);
      expect(response.body.data.pagination).to.deep.equal({ total: 3, page: 2, per_page: 1, total_pages: 3 });
      expect(customers.lastRequest.ListCustomers).to.deep.include({
        page: { page: 2, per_page: 1 },
        q: 'example',
        organization_id: 3,
      });
      const link = response.headers.get('link')!;
      expect(link).to.include('rel="next"').and.include('rel="prev"').and.include('/v1/customers?');
    });

    it('refuses bad parameters with 400 naming each, before any call', async () => {
      expectError(await call('GET', '/customers?email=not-an-address'), 400, 'Invalid email', {
        email: ['email must be an email address'],
      });
      expectError(await call('GET', '/customers?organization_id=x'), 400, 'Invalid organization_id', {
        organization_id: ['organization_id must be an organization id (a positive integer)'],
      });
      expectError(await call('GET', '/customers?per_page=101'), 400, 'Invalid per_page', ['per_page']);
      expectError(await call('GET', '/customers?colour=red'), 400, 'Invalid colour', {
        colour: ['Unknown query parameter: colour'],
      });
      expectError(await call('GET', '/customers?email=a@b.co%0d%0aBcc:x@y.z'), 400, 'Invalid email', [
        'email',
      ]);
      expect(customers.calls.ListCustomers).to.equal(undefined);
    });

    it('needs customers:read (403 naming it); customers:write for writes', async () => {
      expectError(
        await call('GET', '/customers', undefined, FULL_KEY),
        403,
        'Missing required scope: customers:read',
      );
      expectError(
        await call('POST', '/customers', { name: 'X', emails: ['x@example.com'] }, KEY.readOnly),
        403,
        'Missing required scope: customers:write',
      );
      expect(customers.calls.CreateCustomer).to.equal(undefined);
    });

    it('answers 503 when the customer service is not deployed', async () => {
      const without = await startTestGateway({
        services: { lookup: lookup.address, tickets: tickets.address },
      });
      try {
        const response = await sendJson(`${without.apiUrl}/v1/customers`, 'GET', bearer(KEY.admin));
        expectError(response, 503, 'The customers service is not deployed');
      } finally {
        await without.close();
      }
    });
  });

  describe('customer writes', () => {
    it('creates (201 with Location), addresses trimmed and lower-cased; a taken address is 409', async () => {
      const response = await call('POST', '/customers', {
        name: '  Grace Hopper ',
        emails: [' Grace@Example.com', 'g@example.org'],
        organization_id: 3,
        notes: 'VIP',
      });
      expect(response.status, JSON.stringify(response.body)).to.equal(201);
      const created = response.body.data.customer;
      expect(created).to.deep.include({
        name: 'Grace Hopper',
        emails: ['grace@example.com', 'g@example.org'],
        organization_id: 3,
        notes: 'VIP',
      });
      expect(response.headers.get('location')).to.equal(`/v1/customers/${created.id}`);
      expect(customers.lastRequest.CreateCustomer).to.deep.include({
        name: 'Grace Hopper',
        emails: ['grace@example.com', 'g@example.org'],
        organization_id: 3,
        notes: 'VIP',
      });
      const taken = await call('POST', '/customers', { name: 'Other', emails: ['grace@example.com'] });
      expectError(taken, 409, 'grace@example.com belongs to another customer');
    });

    it('refuses bad bodies with 422 per field', async () => {
      expectError(await call('POST', '/customers', {}), 422, 'Validation failed', {
        name: ['Name is required'],
        emails: ['Emails must be an array of addresses'],
      });
      expectError(
        await call('POST', '/customers', { name: 'X', emails: ['a@example.com', 'A@example.com', 'nope'] }),
        422,
        'Validation failed',
        {
          'emails[2]': ['Each email must be an email address'],
          emails: ['Each email address may be given once'],
        },
      );
      expectError(await call('POST', '/customers', { name: 'X', emails: [] }), 422, 'Validation failed', {
        emails: ['Give at least one email address'],
      });
      expectError(
        await call('POST', '/customers', { name: 'X', emails: ['a@example.com', 'A@example.com'] }),
        422,
        'Validation failed',
        { emails: ['Each email address may be given once'] },
      );
      expectError(
        await call('POST', '/customers', {
          name: 'x'.repeat(256),
          emails: ['a@example.com'],
          organization_id: 0,
        }),
        422,
        'Validation failed',
        {
          name: ['Name must be at most 255 characters'],
          organization_id: ['Organization ID must be at least 1'],
        },
      );
      expectError(await call('POST', '/customers', [1]), 422, 'Validation failed', ['body']);
      expect(customers.calls.CreateCustomer).to.equal(undefined);
    });

    it('gets one (a merged one answers its target); bad ids are 400, unknown 404', async () => {
      const target = customers.addCustomer({ emails: ['t@example.com'] });
      const source = customers.addCustomer({ emails: [], merged_into: target.id });
      const response = await call('GET', `/customers/${source.id}`);
      expect(response.status).to.equal(200);
      expect(response.body.data.customer.id).to.equal(target.id);
      expectError(await call('GET', '/customers/0'), 400, 'Invalid customer id');
      expectError(await call('GET', '/customers/abc'), 400, 'Invalid customer id');
      expectError(await call('GET', '/customers/99999'), 404, 'Customer not found');
    });

    it('updates only the given fields; organization_id null clears it; nothing to change is 422', async () => {
      const grace = customers.addCustomer({ emails: ['grace@example.com'], organization_id: 3 });
      const response = await call('PUT', `/customers/${grace.id}`, { organization_id: null, notes: '' });
      expect(response.status, JSON.stringify(response.body)).to.equal(200);
      expect(response.body.data.customer).to.deep.include({ organization_id: null, notes: '' });
      const sent = customers.lastRequest.UpdateCustomer;
      expect(sent).to.deep.include({ id: grace.id, organization_id: {}, notes: '', emails: null });
      expect(sent.name).to.equal(undefined);
      await call('PUT', `/customers/${grace.id}`, { emails: ['New@example.com'] });
      expect(customers.lastRequest.UpdateCustomer.emails).to.deep.equal({ values: ['new@example.com'] });
      expectError(await call('PUT', `/customers/${grace.id}`, {}), 422, 'Validation failed', {
        body: ['Give at least one field to change: name, emails, organization_id or notes'],
      });
    });

    it('deletes only with an admin (the key owner too), then the customer is 404', async () => {
      const grace = customers.addCustomer({ emails: ['grace@example.com'] });
      expectError(
        await call('DELETE', `/customers/${grace.id}`, undefined, KEY.agent),
        403,
        'Your role (agent) does not allow this; it needs admin or higher',
      );
      expect(customers.calls.DeleteCustomer).to.equal(undefined);
      const deleted = await call('DELETE', `/customers/${grace.id}`);
      expect(deleted.body).to.deep.equal({ ok: true, data: { message: 'Customer deleted' } });
      expectError(await call('GET', `/customers/${grace.id}`), 404, 'Customer not found');
    });

    it('merges with a team lead or higher: the target answers; a missing target_id is 422', async () => {
      const source = customers.addCustomer({ emails: ['s@example.com'] });
      const target = customers.addCustomer({ emails: ['t@example.com'] });
      expectError(
        await call('POST', `/customers/${source.id}/merge`, { target_id: target.id }, KEY.agent),
        403,
        'Your role (agent) does not allow this; it needs team_lead or higher',
      );
      const merged = await call('POST', `/customers/${source.id}/merge`, { target_id: target.id }, KEY.lead);
      expect(merged.status, JSON.stringify(merged.body)).to.equal(200);
      expect(merged.body.data.customer).to.deep.include({
        id: target.id,
        emails: ['t@example.com', 's@example.com'],
      });
      expect(customers.lastRequest.MergeCustomers).to.deep.equal({
        source_id: source.id,
        target_id: target.id,
      });
      expectError(await call('POST', `/customers/${target.id}/merge`, {}), 422, 'Validation failed', {
        target_id: ['Target ID is required'],
      });
      expectError(
        await call('POST', `/customers/${target.id}/merge`, { target_id: target.id }),
        422,
        'Validation failed',
        { target_id: ['Cannot merge a customer into itself'] },
      );
    });
  });

  describe('GET /v1/customers/{id}/tickets', () => {
    it("lists the project's tickets of the customer through ListTickets customer_id, as GET /tickets", async () => {
      const grace = customers.addCustomer({ emails: ['grace@example.com'] });
      const response = await call(
        'GET',
        `/customers/${grace.id}/tickets?project_id=1&status=open&per_page=10`,
      );
      expect(response.status, JSON.stringify(response.body)).to.equal(200);
      expect(response.body.data.tickets).to.have.length(1);
      expect(response.body.data.pagination).to.deep.include({ total: 1 });
      expect(tickets.lastRequest.ListTickets).to.deep.include({
        project_id: 1,
        customer_id: grace.id,
        status: 'open',
        page: { page: 1, per_page: 10 },
      });
      expect(response.headers.get('link')).to.include(`/v1/customers/${grace.id}/tickets?`);
    });

    it('searches with q through SearchTicketsJson; a merged customer lists its target', async () => {
      const target = customers.addCustomer({ emails: ['t@example.com'] });
      const source = customers.addCustomer({ emails: [], merged_into: target.id });
      tickets.override('SearchTicketsJson', () => [
        ticketsJsonBatch([ticketMessage({ requester_id: target.id })]),
      ]);
      const response = await call('GET', `/customers/${source.id}/tickets?project=acme&q=printer`);
      expect(response.status).to.equal(200);
      expect(response.body.data.tickets[0].requester_id).to.equal(target.id);
      expect(tickets.lastRequest.SearchTicketsJson).to.deep.include({ q: 'printer', customer_id: target.id });
    });

    it('needs a project (400), a known customer (404) and refuses its own filters as unknown', async () => {
      const grace = customers.addCustomer({ emails: ['grace@example.com'] });
      expectError(await call('GET', `/customers/${grace.id}/tickets`), 400, 'Project ID is required.');
      expectError(await call('GET', '/customers/99999/tickets?project_id=1'), 404, 'Customer not found');
      expectError(await call('GET', '/customers/x/tickets?project_id=1'), 400, 'Invalid customer id');
      expectError(
        await call('GET', `/customers/${grace.id}/tickets?project_id=1&requester_id=4`),
        400,
        'Invalid requester_id',
        { requester_id: ['Unknown query parameter: requester_id'] },
      );
      expect(tickets.calls.ListTickets).to.equal(undefined);
    });
  });

  describe('organizations', () => {
    it('create (201, Location), list, get, update, delete (admin only)', async () => {
      const created = await call('POST', '/organizations', {
        name: 'Acme',
        domains: ['Example.COM', 'example.com'],
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      const organization = created.body.data.organization;
      expect(organization).to.deep.include({
        name: 'Acme',
        domains: ['example.com'],
        notes: '',
        customer_count: 0,
      });
      expect(created.headers.get('location')).to.equal(`/v1/organizations/${organization.id}`);
      const listed = await call('GET', '/organizations?q=acm');
      expect(listed.body.data).to.deep.include({ count: 1 });
      expect(listed.body.data.organizations[0].id).to.equal(organization.id);
      expect(customers.lastRequest.ListOrganizations).to.deep.include({ q: 'acm' });
      expect((await call('GET', `/organizations/${organization.id}`)).body.data.organization.name).to.equal(
        'Acme',
      );
      const updated = await call('PUT', `/organizations/${organization.id}`, { domains: [] }, KEY.agent);
      expect(updated.body.data.organization.domains).to.deep.equal([]);
      expect(customers.lastRequest.UpdateOrganization.domains).to.deep.equal({ values: [] });
      expectError(
        await call('DELETE', `/organizations/${organization.id}`, undefined, KEY.agent),
        403,
        'Your role (agent) does not allow this; it needs admin or higher',
      );
      expect((await call('DELETE', `/organizations/${organization.id}`)).body.data.message).to.equal(
        'Organization deleted',
      );
      expectError(await call('GET', `/organizations/${organization.id}`), 404, 'Organization not found');
    });

    it('refuses bad input: ids 400, bodies 422, parameters 400', async () => {
      expectError(await call('GET', '/organizations/1.5'), 400, 'Invalid organization id');
      expectError(
        await call('POST', '/organizations', { name: '', domains: ['not a domain'] }),
        422,
        'Validation failed',
        {
          name: ['Name cannot be empty'],
          'domains[0]': ['Each domain must be a domain name such as example.com'],
        },
      );
      expectError(await call('PUT', '/organizations/1', {}), 422, 'Validation failed', {
        body: ['Give at least one field to change: name, domains or notes'],
      });
      expectError(await call('GET', '/organizations?page=0'), 400, 'Invalid page', ['page']);
      expect(customers.calls.CreateOrganization).to.equal(undefined);
    });
  });

  describe('on the session host (/api, roles)', () => {
    const browser = (email: string) => signedInBrowser(gateway.appUrl, email, PASSWORD);
    const app = (headers: Record<string, string>, method: string, path: string, body?: unknown) =>
      sendJson(`${gateway.appUrl}/api${path}`, method, headers, body);

    it('every user reads, agents write, team leads merge, admins delete', async () => {
      const viewer = await browser('carol@example.com');
      const agent = await browser('bob@example.com');
      const lead = await browser('lea@example.com');
      const admin = await browser('alice@example.com');
      const grace = customers.addCustomer({ emails: ['grace@example.com'] });
      const ada = customers.addCustomer({ emails: ['ada@example.com'] });

      expect((await app(viewer, 'GET', '/customers?email=grace@example.com')).body.data.count).to.equal(1);
      expect((await app(viewer, 'GET', `/customers/${grace.id}`)).status).to.equal(200);
      expectError(
        await app(viewer, 'POST', '/customers', { name: 'X', emails: ['x@example.com'] }),
        403,
        'Your role (viewer) does not allow this; it needs agent or higher',
      );
      const created = await app(agent, 'POST', '/customers', { name: 'X', emails: ['x@example.com'] });
      expect(created.status).to.equal(201);
      expect(created.headers.get('location')).to.equal(`/api/customers/${created.body.data.customer.id}`);
      expect((await app(agent, 'PUT', `/customers/${grace.id}`, { name: 'Grace H' })).status).to.equal(200);
      expectError(
        await app(agent, 'POST', `/customers/${ada.id}/merge`, { target_id: grace.id }),
        403,
        'Your role (agent) does not allow this; it needs team_lead or higher',
      );
      expect(
        (await app(lead, 'POST', `/customers/${ada.id}/merge`, { target_id: grace.id })).status,
      ).to.equal(200);
      expectError(
        await app(lead, 'DELETE', `/customers/${grace.id}`),
        403,
        'Your role (team_lead) does not allow this; it needs admin or higher',
      );
      expect((await app(admin, 'DELETE', `/customers/${grace.id}`)).body.data.message).to.equal(
        'Customer deleted',
      );
      const tickets = await app(
        viewer,
        'GET',
        `/customers/${created.body.data.customer.id}/tickets?project_id=1`,
      );
      expect(tickets.status).to.equal(200);
    });

    it('needs the CSRF token on writes and a session at all', async () => {
      const agent = await browser('bob@example.com');
      const withoutToken = await app({ Cookie: agent.Cookie }, 'POST', '/customers', {
        name: 'X',
        emails: ['x@example.com'],
      });
      expect(withoutToken.status).to.equal(403);
      expect((await request(`${gateway.appUrl}/api/customers`)).status).to.equal(401);
      expect(customers.calls.CreateCustomer).to.equal(undefined);
    });
  });

  describe('tickets: requester and cc', () => {
    const create = (body: Record<string, unknown>, key = KEY.admin) =>
      call('POST', '/tickets?project_id=1', { ticket_type_id: 1, title: 'Help', ...body }, key);

    it('requester by address: found or created through FindOrCreateCustomers, then sent as requester_id', async () => {
      const response = await create({ requester: { email: ' Grace@Example.com ', name: 'Grace' } });
      expect(response.status, JSON.stringify(response.body)).to.equal(201);
      expect(customers.lastRequest.FindOrCreateCustomers).to.deep.equal({
        addresses: [{ email: 'grace@example.com', name: 'Grace' }],
      });
      const [grace] = (await call('GET', '/customers?email=grace@example.com')).body.data.customers;
      expect(tickets.lastRequest.CreateTicket).to.deep.include({ requester_id: grace.id, cc: [] });
      // The same address again: the same customer, none created.
      await create({ requester: { email: 'grace@example.com' } });
      expect(tickets.lastRequest.CreateTicket.requester_id).to.equal(grace.id);
      expect((await call('GET', '/customers')).body.data.count).to.equal(1);
    });

    it('requester_id and cc checked through BatchGetCustomers; cc_emails joined with cc, deduplicated', async () => {
      const grace = customers.addCustomer({ emails: ['grace@example.com'] });
      const ada = customers.addCustomer({ emails: ['ada@example.com'] });
      const old = customers.addCustomer({ emails: [], merged_into: ada.id });
      const response = await create({
        requester_id: grace.id,
        cc: [old.id, ada.id],
        cc_emails: ['ada@example.com', 'new@example.com'],
      });
      expect(response.status, JSON.stringify(response.body)).to.equal(201);
      expect(customers.lastRequest.BatchGetCustomers.ids).to.have.members([grace.id, old.id, ada.id]);
      const sent = tickets.lastRequest.CreateTicket;
      expect(sent.requester_id).to.equal(grace.id);
      expect(sent.cc).to.have.length(2);
      expect(sent.cc[0]).to.equal(ada.id);
      expect(sent.cc[1]).to.not.equal(ada.id);
    });

    it('unknown or deleted customers are 422 under their field; requester with requester_id is 422', async () => {
      const gone = customers.addCustomer({ emails: [], deleted: true });
      expectError(await create({ requester_id: 99999, cc: [gone.id, 99998] }), 422, 'Validation failed', {
        requester_id: ['No customer with id 99999'],
        cc: [`No customers with ids ${gone.id}, 99998`],
      });
      expectError(
        await create({ requester_id: 5, requester: { email: 'grace@example.com' } }),
        422,
        'Validation failed',
        { requester: ['Give requester or requester_id, not both'] },
      );
      expectError(
        await create({ requester: { email: 'grace' }, cc: ['x'], cc_emails: 'a@example.com' }),
        422,
        'Validation failed',
        {
          'requester.email': ['Requester email must be an email address'],
          'cc[0]': ['Each cc must be an integer'],
          cc_emails: ['cc_emails must be an array of email addresses'],
        },
      );
      expect(tickets.calls.CreateTicket).to.equal(undefined);
      expect(customers.calls.FindOrCreateCustomers).to.equal(undefined);
    });

    it('a ticket without people makes no customer call (works without the customer service)', async () => {
      const without = await startTestGateway({
        services: { lookup: lookup.address, tickets: tickets.address },
      });
      try {
        const url = `${without.apiUrl}/v1/tickets?project_id=1`;
        const plain = await sendJson(url, 'POST', bearer(KEY.admin), { ticket_type_id: 1, title: 'Help' });
        expect(plain.status).to.equal(201);
        const named = await sendJson(url, 'POST', bearer(KEY.admin), {
          ticket_type_id: 1,
          title: 'Help',
          requester_id: 5,
        });
        expectError(named, 503, 'The customers service is not deployed');
      } finally {
        await without.close();
      }
    });

    it('update: requester_id null clears, cc [] empties, requester sets; the rest unchanged', async () => {
      const cleared = await call('PUT', '/tickets/42?project_id=1', { requester_id: null, cc: [] });
      expect(cleared.status, JSON.stringify(cleared.body)).to.equal(200);
      expect(tickets.lastRequest.UpdateTicket).to.deep.include({ requester_id: {}, cc: { ids: [] } });
      expect(customers.calls.BatchGetCustomers).to.equal(undefined);
      await call('PUT', '/tickets/42?project_id=1', { requester: { email: 'grace@example.com' } });
      const sent = tickets.lastRequest.UpdateTicket;
      expect(sent.requester_id.value).to.be.a('number');
      expect(sent.cc).to.equal(null);
      await call('PUT', '/tickets/42?project_id=1', { title: 'Only the title' });
      expect(tickets.lastRequest.UpdateTicket).to.deep.include({ requester_id: null, cc: null });
    });

    it('GET /tickets passes customer_id and requester_id; bad values are 400', async () => {
      await call('GET', '/tickets?project_id=1&customer_id=5&requester_id=6');
      expect(tickets.lastRequest.ListTickets).to.deep.include({ customer_id: 5, requester_id: 6 });
      await call('GET', '/tickets?project_id=1&q=printer&customer_id=5');
      expect(tickets.lastRequest.SearchTicketsJson).to.deep.include({ customer_id: 5 });
      expectError(
        await call('GET', '/tickets?project_id=1&customer_id=0&requester_id=x'),
        400,
        'Invalid customer_id, requester_id',
        {
          customer_id: ['customer_id must be a customer id (a positive integer)'],
          requester_id: ['requester_id must be a customer id (a positive integer)'],
        },
      );
    });
  });
});
