/**
 * The customer routes and the requester and cc of tickets against the real lookup, ticket and
 * customer services (fresh databases): an agent's flow end to end through the gateway, and the
 * customer service's own refusals reaching the client as the spec's envelopes.
 */
import { expect } from 'chai';
import { startTestCustomerServer } from '@tix/customer-service/testing';
import { startTestTicketServer } from '@tix/ticket-service/testing';
import { expectError, suiteFixture } from '@tix/kit/testing';
import { apiCaller } from '../support/test-gateway.js';
import { apiKeyMaker, createAlphaAndBeta, createDefaultType } from '../support/lookup-seed.js';
import { startRealServices } from '../support/real-services.js';

describe('customer routes + real customer, ticket and lookup services (fresh databases)', function () {
  this.timeout(60_000);
  const ids = { alpha: 0, beta: 0, task: 0 };
  const keys = { admin: '', agent: '' };
  const WRITE = ['tickets:read', 'tickets:write', 'customers:read', 'customers:write'];

  const fleet = suiteFixture(() =>
    startRealServices({
      label: 'gateway_customers',
      seed: async (admin) => {
        Object.assign(ids, await createAlphaAndBeta(admin));
        ids.task = await createDefaultType(admin, 'alpha');
        await admin.CreateUser({ name: 'Ada', email: 'ada@example.com', role: 'admin' });
        await admin.CreateUser({ name: 'Al', email: 'al@example.com', role: 'agent' });
        keys.admin = await apiKeyMaker(admin, 'ada@example.com')(WRITE);
        keys.agent = await apiKeyMaker(admin, 'al@example.com')(WRITE);
      },
      peers: {
        tickets: ({ lookup }) => startTestTicketServer({ lookupAddress: lookup, label: 'gateway_customers' }),
        customers: () => startTestCustomerServer({ label: 'gateway_customers' }),
      },
    }),
  );

  const call = apiCaller(
    () => fleet.gateway,
    () => keys.agent,
  );

  it('a ticket with a requester by address and a cc: the customer is found by email and lists the ticket', async () => {
    const created = await call('POST', '/tickets?project=alpha', {
      ticket_type_id: ids.task,
      title: 'Cannot log in',
      requester: { email: 'Grace@Example.com', name: 'Grace Hopper' },
      cc_emails: ['boss@example.com'],
    });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const ticket = created.body.data.ticket;

    const found = await call('GET', '/customers?email=grace@example.com');
    expect(found.status).to.equal(200);
    expect(found.body.data.count).to.equal(1);
    const [grace] = found.body.data.customers;
    expect(grace).to.deep.include({
      name: 'Grace Hopper',
      emails: ['grace@example.com'],
      organization_id: null,
    });
    expect(ticket.requester_id).to.equal(grace.id);
    const [boss] = (await call('GET', '/customers?email=boss@example.com')).body.data.customers;
    expect(ticket.cc).to.deep.equal([boss.id]);

    const listed = await call('GET', `/customers/${grace.id}/tickets?project=alpha`);
    expect(listed.status, JSON.stringify(listed.body)).to.equal(200);
    expect(listed.body.data.tickets.map((one: { id: number }) => one.id)).to.deep.equal([ticket.id]);
    expect(listed.body.data.pagination.total).to.equal(1);
    // Copied counts as the customer's too; in another project there is nothing.
    const copied = await call('GET', `/customers/${boss.id}/tickets?project=alpha`);
    expect(copied.body.data.tickets).to.have.length(1);
    const requested = await call('GET', `/tickets?project=alpha&requester_id=${boss.id}`);
    expect(requested.body.data.tickets).to.have.length(0);
    const elsewhere = await call('GET', `/customers/${grace.id}/tickets?project=beta`);
    expect(elsewhere.body.data.tickets).to.have.length(0);

    // The same address again names the same customer.
    const again = await call('POST', '/tickets?project=alpha', {
      ticket_type_id: ids.task,
      title: 'Still cannot log in',
      requester: { email: 'grace@example.com' },
    });
    expect(again.body.data.ticket.requester_id).to.equal(grace.id);

    // Update: requester cleared, cc replaced by id.
    const updated = await call('PUT', `/tickets/${ticket.id}?project=alpha`, {
      requester_id: null,
      cc: [grace.id],
    });
    expect(updated.status, JSON.stringify(updated.body)).to.equal(200);
    expect(updated.body.data.ticket).to.deep.include({ requester_id: null, cc: [grace.id] });
    expectError(
      await call('PUT', `/tickets/${ticket.id}?project=alpha`, { cc: [2147483000] }),
      422,
      'Validation failed',
      { cc: ['No customer with id 2147483000'] },
    );
  });

  it('customers: create, 409 on a taken address, update, merge (team lead+), delete (admin) anonymises', async () => {
    const one = await call('POST', '/customers', { name: 'Linus', emails: ['linus@example.com'] });
    expect(one.status, JSON.stringify(one.body)).to.equal(201);
    const linus = one.body.data.customer;
    const taken = await call('POST', '/customers', { name: 'Other', emails: ['LINUS@example.com'] });
    expect(taken.status, JSON.stringify(taken.body)).to.equal(409);
    const two = await call('POST', '/customers', { name: 'L. T.', emails: ['lt@example.org'] });
    const lt = two.body.data.customer;
    const renamed = await call('PUT', `/customers/${linus.id}`, { notes: 'Kernel' });
    expect(renamed.body.data.customer.notes).to.equal('Kernel');

    expect((await call('POST', `/customers/${lt.id}/merge`, { target_id: linus.id })).status).to.equal(403);
    const merged = await call('POST', `/customers/${lt.id}/merge`, { target_id: linus.id }, keys.admin);
    expect(merged.status, JSON.stringify(merged.body)).to.equal(200);
    expect(merged.body.data.customer.emails).to.have.members(['linus@example.com', 'lt@example.org']);
    expect((await call('GET', `/customers/${lt.id}`)).body.data.customer.id).to.equal(linus.id);

    expect((await call('DELETE', `/customers/${linus.id}`)).status).to.equal(403);
    const deleted = await call('DELETE', `/customers/${linus.id}`, undefined, keys.admin);
    expect(deleted.status, JSON.stringify(deleted.body)).to.equal(200);
    expect((await call('GET', `/customers/${linus.id}`)).status).to.equal(404);
  });

  it('organizations: create with domains, a new customer of the domain joins it, delete keeps the customer', async () => {
    const created = await call('POST', '/organizations', { name: 'Initech', domains: ['initech.example'] });
    expect(created.status, JSON.stringify(created.body)).to.equal(201);
    const initech = created.body.data.organization;
    const peter = (await call('POST', '/customers', { name: 'Peter', emails: ['peter@initech.example'] }))
      .body.data.customer;
    expect(peter.organization_id).to.equal(initech.id);
    const members = await call('GET', `/customers?organization_id=${initech.id}`);
    expect(members.body.data.customers.map((one: { id: number }) => one.id)).to.deep.equal([peter.id]);
    expect(
      (await call('GET', `/organizations/${initech.id}`)).body.data.organization.customer_count,
    ).to.equal(1);
    expect((await call('DELETE', `/organizations/${initech.id}`, undefined, keys.admin)).status).to.equal(
      200,
    );
    expect((await call('GET', `/customers/${peter.id}`)).body.data.customer.organization_id).to.equal(null);
  });
});
