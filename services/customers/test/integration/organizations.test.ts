/**
 * Organizations through gRPC on a real PostgreSQL: names and domains unique (409), domains
 * lower-cased, customer counts, the list, and a delete that keeps the customers.
 */
import { expect } from 'chai';
import pg from 'pg';
import { createServiceClient, type ServiceClient } from '@tix/kit';
import { refusalOf } from '@tix/kit/testing';
import type { Principal } from '@tix/protos';
import { startTestCustomerServer, type TestCustomerServer } from '../../src/testing.js';

const ADMIN: Principal = { kind: 'session', user_id: 3, role: 'admin', scopes: [] };

describe('organizations', function () {
  this.timeout(60_000);
  let server: TestCustomerServer;
  let client: ServiceClient<'customers'>;
  let db: pg.Pool;

  before(async () => {
    server = await startTestCustomerServer({ label: 'customers_organizations' });
    client = createServiceClient('customers', server.address, { deadlineMs: 10_000 });
    db = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
  });

  after(async () => {
    client?.close();
    await db?.end();
    await server?.stop();
  });

  it('creates one with lower-cased unique domains, reads it and records who made it', async () => {
    const created = await client.CreateOrganization(
      {
        name: ' Initech ',
        domains: ['Initech.EXAMPLE', '@initech.example', 'mail.initech.example'],
        notes: 'n',
      },
      { principal: ADMIN },
    );
    expect(created).to.include({ name: 'Initech', notes: 'n', customer_count: 0 });
    expect(created.domains).to.deep.equal(['initech.example', 'mail.initech.example']);
    expect(await client.GetOrganization({ id: created.id })).to.deep.equal(created);
    const { rows } = await db.query('SELECT created_by, updated_by FROM organizations WHERE id = $1', [
      created.id,
    ]);
    expect(rows[0]).to.deep.equal({ created_by: 3, updated_by: 3 });
    expect((await refusalOf(client.GetOrganization({ id: 999_999 }))).kind).to.equal('not_found');
  });

  it('answers 409 for a name (any case) or a domain another organization has', async () => {
    await client.CreateOrganization({ name: 'Globex', domains: ['globex.example'], notes: '' });
    expect(
      await refusalOf(client.CreateOrganization({ name: 'GLOBEX', domains: [], notes: '' })),
    ).to.deep.equal({
      kind: 'conflict',
      message: 'An organization with this name exists',
    });
    expect(
      await refusalOf(
        client.CreateOrganization({ name: 'Globex 2', domains: ['GLOBEX.example'], notes: '' }),
      ),
    ).to.deep.equal({ kind: 'conflict', message: 'Domain globex.example belongs to another organization' });
    const other = await client.CreateOrganization({ name: 'Hooli', domains: [], notes: '' });
    expect((await refusalOf(client.UpdateOrganization({ id: other.id, name: 'globex' }))).kind).to.equal(
      'conflict',
    );
    expect(
      (await refusalOf(client.UpdateOrganization({ id: other.id, domains: { values: ['globex.example'] } })))
        .kind,
    ).to.equal('conflict');
    expect((await client.GetOrganization({ id: other.id })).domains).to.deep.equal([]);
  });

  it('never deadlocks two organizations claiming the same domains in opposite orders', async () => {
    for (let round = 0; round < 10; round++) {
      const domains = Array.from({ length: 6 }, (_, index) => `d${index}.round${round}.example`);
      const results = await Promise.allSettled([
        client.CreateOrganization({ name: `Forward ${round}`, domains, notes: '' }),
        client.CreateOrganization({ name: `Backward ${round}`, domains: [...domains].reverse(), notes: '' }),
      ]);
      const kinds = results.map((result) =>
        result.status === 'fulfilled' ? 'created' : (result.reason as { kind: string }).kind,
      );
      expect(kinds.sort(), `round ${round}`).to.deep.equal(['conflict', 'created']);
    }
  });

  it('refuses a bad name, domain or notes with 422 naming each field', async () => {
    const refused = await refusalOf(
      client.CreateOrganization({
        name: '',
        domains: ['not a domain', 'x@y.example'],
        notes: 'n'.repeat(10_001),
      }),
    );
    expect(refused.kind).to.equal('validation_failed');
    expect(refused.validation_errors).to.have.all.keys('name', 'domains[0]', 'domains[1]', 'notes');
    expect(
      (await refusalOf(client.CreateOrganization({ name: 'n'.repeat(256), domains: [], notes: '' }))).kind,
    ).to.equal('validation_failed');
    expect((await refusalOf(client.UpdateOrganization({ id: 999_999, name: 'x' }))).kind).to.equal(
      'not_found',
    );
  });

  it('updates the fields present and replaces the domains', async () => {
    const created = await client.CreateOrganization({
      name: 'Umbrella',
      domains: ['umbrella.example'],
      notes: 'a',
    });
    const updated = await client.UpdateOrganization({
      id: created.id,
      notes: 'b',
      domains: { values: ['umbrella.test', 'Umbrella.example'] },
    });
    expect(updated).to.include({ name: 'Umbrella', notes: 'b' });
    expect(updated.domains).to.deep.equal(['umbrella.example', 'umbrella.test']);
    const renamed = await client.UpdateOrganization({
      id: created.id,
      name: 'Umbrella Corp',
      domains: { values: [] },
    });
    expect(renamed.name).to.equal('Umbrella Corp');
    expect(renamed.domains).to.deep.equal([]);
  });

  it('counts live customers, lists by name with q over names and domains', async () => {
    const organization = await client.CreateOrganization({
      name: 'Vandelay',
      domains: ['vandelay.example'],
      notes: '',
    });
    const [a, b] = (
      await client.FindOrCreateCustomers({
        addresses: [
          { email: 'art@vandelay.example', name: 'Art' },
          { email: 'kramer@vandelay.example', name: 'Kramer' },
        ],
      })
    ).customers;
    expect([a!.organization_id, b!.organization_id]).to.deep.equal([organization.id, organization.id]);
    await client.DeleteCustomer({ id: b!.id });
    expect((await client.GetOrganization({ id: organization.id })).customer_count).to.equal(1);
    const byDomain = await client.ListOrganizations({ q: 'VANDELAY.ex' });
    expect(byDomain.organizations.map((o) => o.id)).to.deep.equal([organization.id]);
    const all = await client.ListOrganizations({ page: { page: 1, per_page: 2 } });
    expect(all.pagination?.per_page).to.equal(2);
    expect(all.pagination?.total).to.be.greaterThan(2);
    const names = (await client.ListOrganizations({ page: { per_page: 100 } })).organizations.map(
      (o) => o.name,
    );
    expect(names).to.deep.equal([...names].sort((x, y) => x.toLowerCase().localeCompare(y.toLowerCase())));
    expect((await refusalOf(client.ListOrganizations({ q: '\u0000' }))).kind).to.equal('bad_request');
  });

  it('delete keeps its customers, with organization_id null and the change attributed', async () => {
    const organization = await client.CreateOrganization({
      name: 'Soylent',
      domains: ['soylent.example'],
      notes: '',
    });
    const created = await client.CreateCustomer({ name: 'Sol', emails: ['sol@soylent.example'], notes: '' });
    expect(created.organization_id).to.equal(organization.id);
    expect(await client.DeleteOrganization({ id: organization.id }, { principal: ADMIN })).to.deep.equal({
      message: 'Organization deleted',
    });
    const after = await client.GetCustomer({ id: created.id });
    expect(after.organization_id).to.equal(undefined);
    expect(after.emails).to.deep.equal(['sol@soylent.example']);
    const { rows } = await db.query('SELECT updated_by FROM customers WHERE id = $1', [created.id]);
    expect(rows[0]).to.deep.equal({ updated_by: 3 });
    expect((await refusalOf(client.GetOrganization({ id: organization.id }))).kind).to.equal('not_found');
    expect((await refusalOf(client.DeleteOrganization({ id: organization.id }))).kind).to.equal('not_found');
    const next = await client.CreateOrganization({
      name: 'Soylent',
      domains: ['soylent.example'],
      notes: '',
    });
    expect(next.domains, 'the name and domains are free again').to.deep.equal(['soylent.example']);
  });
});
