/**
 * Customers through the fleet (gateway -> customer service, ticket service, lookup), as an
 * integrator and the console drive them: the contracts kept exactly (`GET /customers?email=`
 * answers `{ customers, count }` with id, name, emails and organization_id; tickets carry
 * `requester_id` and `cc`; `GET /customers/{id}/tickets` lists as `GET /tickets` does) on both hosts,
 * the scopes a key needs, and a merge whose tickets follow it (customer.merged, consumed by the
 * ticket service).
 */
import { expect } from 'chai';
import { eventually, expectError } from '@tix/kit/testing';
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

  it("a merge makes the merged customer's tickets the target's: requester and cc re-pointed, each once", async () => {
    const lead = await createKey({ project: project.slug, role: 'team_lead', scopes: CUSTOMER_SCOPES });
    const domain = `${unique('merge')}.example`;
    const create = async (body: Record<string, unknown>) => {
      const created = await request('/v1/tickets', {
        method: 'POST',
        key,
        body: { ticket_type_id: typeId, title: 'Merge me', ...body },
      });
      expect(created.status, created.text).to.equal(201);
      return created.body.data.ticket as { id: number; requester_id: number; cc: number[]; version: number };
    };
    const asked = await create({ requester: { email: `old@${domain}` }, cc_emails: [`other@${domain}`] });
    const sourceId = asked.requester_id;
    const copiedOn = await create({ requester: { email: `new@${domain}` }, cc: [sourceId] });
    const targetId = copiedOn.requester_id;
    expect(copiedOn.cc).to.deep.equal([sourceId]);

    const merged = await request(`/v1/customers/${sourceId}/merge`, {
      method: 'POST',
      key: lead.key,
      body: { target_id: targetId },
    });
    expect(merged.status, merged.text).to.equal(200);
    expect(merged.body.data.customer.emails).to.have.members([`new@${domain}`, `old@${domain}`]);

    // The ticket service hears customer.merged and re-points both tickets, one version each.
    const listed = await eventually(async () => {
      const theirs = await request(`/v1/customers/${targetId}/tickets?sort=id`, { key });
      const tickets = theirs.body.data.tickets as { id: number; requester_id: number; cc: number[] }[];
      return tickets.length === 2 && tickets.every((each) => each.requester_id === targetId)
        ? tickets
        : undefined;
    }, 20_000);
    const byId = new Map(listed.map((each) => [each.id, each]));
    expect(byId.get(asked.id)).to.deep.include({
      requester_id: targetId,
      cc: asked.cc,
      version: asked.version + 1,
      updated_by: lead.user.id,
    });
    // Already the requester, the target is not copied on its own ticket: the merged one just goes.
    expect(byId.get(copiedOn.id)).to.deep.include({ cc: [], version: copiedOn.version + 1 });
    // The merged customer's own page follows the merge to the same tickets.
    const viaSource = await request(`/v1/customers/${sourceId}/tickets?sort=id`, { key });
    expect(viaSource.body.data.tickets).to.deep.equal(listed);
    const bySource = await request(`/v1/tickets?customer_id=${sourceId}`, { key });
    expect(bySource.body.data.tickets).to.deep.equal([]);
  });
});
