/**
 * Customers through the fleet (gateway -> customer service, ticket service, lookup), as an
 * integrator and the console drive them: the contracts kept exactly (`GET /customers?email=`
 * answers `{ customers, count }` with id, name, emails and organization_id; tickets carry
 * `requester_id` and `cc`; `GET /customers/{id}/tickets` lists as `GET /tickets` does) on both hosts,
 * and the scopes a key needs.
 */
import { expect } from 'chai';
import { expectError } from '@tix/kit/testing';
import {
  createKey,
  createProject,
  createTicketType,
  createUser,
  unique,
  type ProjectFixture,
} from '../support/fixtures.js';
import { request } from '../support/http.js';
import { signIn } from '../support/session.js';

const CUSTOMER_SCOPES = 'tickets:read,tickets:write,customers:read,customers:write';
const PASSWORD = 'customers e2e password';

describe('customers through the fleet', () => {
  let project: ProjectFixture;
  let typeId: number;
  let key: string;

  before(async () => {
    project = await createProject();
    typeId = (await createTicketType(project.slug, { isDefault: true })).id;
    key = (await createKey({ project: project.slug, role: 'agent', scopes: CUSTOMER_SCOPES })).key;
  });

  it('a ticket for a requester by address: found by email, carrying requester_id and cc, listed as theirs', async () => {
    // A domain of its own: other suites make organizations that claim example.com.
    const domain = `${unique('grace')}.example`;
    const address = `grace@${domain}`;
    const copied = `boss@${domain}`;
    const created = await request('/v1/tickets', {
      method: 'POST',
      key,
      body: {
        ticket_type_id: typeId,
        title: 'Cannot log in',
        requester: { email: address.toUpperCase(), name: 'Grace Hopper' },
        cc_emails: [copied],
      },
    });
    expect(created.status, created.text).to.equal(201);
    const ticket = created.body.data.ticket;

    const found = await request(`/v1/customers?email=${encodeURIComponent(address)}`, { key });
    expect(found.status, found.text).to.equal(200);
    expect(found.body.ok).to.equal(true);
    expect(found.body.data.count).to.equal(1);
    const [grace] = found.body.data.customers;
    expect(grace).to.include({ name: 'Grace Hopper', organization_id: null });
    expect(grace.id).to.be.a('number');
    expect(grace.emails).to.deep.equal([address]);
    expect(ticket.requester_id).to.equal(grace.id);
    const [boss] = (await request(`/v1/customers?email=${encodeURIComponent(copied)}`, { key })).body.data
      .customers;
    expect(ticket.cc).to.deep.equal([boss.id]);

    const one = await request(`/v1/customers/${grace.id}`, { key });
    expect(one.body.data.customer).to.deep.equal(grace);
    const read = await request(`/v1/tickets/${ticket.id}`, { key });
    expect(read.body.data.ticket).to.include({ requester_id: grace.id });

    const theirs = await request(`/v1/customers/${grace.id}/tickets`, { key });
    expect(theirs.status, theirs.text).to.equal(200);
    const all = await request(`/v1/tickets?requester_id=${grace.id}`, { key });
    expect(theirs.body.data).to.deep.equal(all.body.data);
    expect(theirs.body.data.tickets.map((each: { id: number }) => each.id)).to.deep.equal([ticket.id]);
  });

  it('on the session host: an agent finds and creates customers; a viewer reads only', async () => {
    const agent = await createUser('agent', { password: PASSWORD });
    const viewer = await createUser('viewer', { password: PASSWORD });
    const agentSession = await signIn(agent.email, PASSWORD);
    const viewerSession = await signIn(viewer.email, PASSWORD);
    const address = `${unique('ada')}@example.com`;
    const created = await agentSession.call('POST', '/customers', { name: 'Ada', emails: [address] });
    expect(created.status, created.text).to.equal(201);
    const listed = await viewerSession.call('GET', `/customers?email=${encodeURIComponent(address)}`);
    expect(listed.body.data.customers.map((each: { id: number }) => each.id)).to.deep.equal([
      created.body.data.customer.id,
    ]);
    expectError(
      await viewerSession.call('POST', '/customers', { name: 'No', emails: [`${unique('no')}@example.com`] }),
      403,
      'Your role (viewer) does not allow this; it needs agent or higher',
    );
  });

  it('a key without the customer scopes is 403 naming the scope', async () => {
    const plain = (await createKey({ project: project.slug, role: 'admin' })).key;
    expectError(
      await request('/v1/customers', { key: plain }),
      403,
      'Missing required scope: customers:read',
    );
  });
});
