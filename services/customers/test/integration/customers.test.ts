/**
 * The customer service through gRPC on a real PostgreSQL: finding and creating customers by
 * address (race-safe), reading, listing, the address rules, updates, merges and the anonymising
 * delete.
 */
import { expect } from 'chai';
import pg from 'pg';
import { createServiceClient, type ServiceClient } from '@tix/kit';
import { refusalOf } from '@tix/kit/testing';
import type { Principal } from '@tix/protos';
import { startTestCustomerServer, type TestCustomerServer } from '../../src/testing.js';

/** The longest domain label (63 characters). */
const LABEL = 'b'.repeat(63);
const AGENT: Principal = { kind: 'session', user_id: 7, role: 'agent', scopes: [] };

describe('customers', function () {
  this.timeout(60_000);
  let server: TestCustomerServer;
  let client: ServiceClient<'customers'>;
  let db: pg.Pool;

  before(async () => {
    server = await startTestCustomerServer();
    client = createServiceClient('customers', server.address, { deadlineMs: 10_000 });
    db = new pg.Pool({ connectionString: server.databaseUrl, max: 2 });
  });

  after(async () => {
    client?.close();
    await db?.end();
    await server?.stop();
  });

  let counter = 0;
  /** An address no other test uses. */
  const fresh = (domain = 'example.com') => `person${++counter}.${Date.now()}@${domain}`;

  describe('FindOrCreateCustomers', () => {
    it('creates a customer named after the address when none holds it, and finds it the next time', async () => {
      const email = fresh();
      const [created] = (await client.FindOrCreateCustomers({ addresses: [{ email, name: '' }] })).customers;
      expect(created!.name).to.equal(email.split('@')[0]);
      expect(created!.emails).to.deep.equal([email]);
      expect(created!.organization_id).to.equal(undefined);
      const [again] = (
        await client.FindOrCreateCustomers({
          addresses: [{ email: email.toUpperCase(), name: 'Other Name' }],
        })
      ).customers;
      expect(again!.id).to.equal(created!.id);
      expect(again!.name).to.equal(created!.name, 'an existing customer keeps its name');
    });

    it('uses the given name, made safe, and answers one customer per holder in request order', async () => {
      const a = fresh();
      const b = fresh();
      const { customers } = await client.FindOrCreateCustomers({
        addresses: [
          { email: a, name: '  Ann\r\nBcc: x@y.z ' },
          { email: b, name: 'Bob' },
          { email: a.toUpperCase(), name: 'Ann again' },
        ],
      });
      expect(customers.map((c) => c.emails[0])).to.deep.equal([a, b]);
      expect(customers[0]!.name).to.equal('Ann Bcc: x@y.z');
      expect(customers[1]!.name).to.equal('Bob');
    });

    it('answers one id to 20 parallel calls for one new address, and stores one customer', async () => {
      const email = fresh();
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          client.FindOrCreateCustomers({ addresses: [{ email, name: `Caller ${index}` }] }),
        ),
      );
      const ids = new Set(answers.map((answer) => answer.customers[0]!.id));
      expect(ids.size).to.equal(1);
      const { rows } = await db.query(
        'SELECT count(*)::int AS n FROM customers c JOIN customer_emails e ON e.customer_id = c.id WHERE e.email = $1',
        [email],
      );
      expect(rows[0].n).to.equal(1);
    });

    for (const [label, email] of [
      ['empty', ''],
      ['321 characters', `${'a'.repeat(64)}@${LABEL}.${LABEL}.${LABEL}.${'d'.repeat(62)}.e`],
      ['a header injection', 'a@b.c\r\nBcc: x@y.z'],
      ['without a domain dot', 'someone@localhost'],
      ['two at signs', 'a@b@c.com'],
    ] as const) {
      it(`refuses an address that is ${label} (${email.length} characters) with INVALID_ARGUMENT naming it`, async () => {
        const valid = fresh();
        const refused = await refusalOf(
          client.FindOrCreateCustomers({
            addresses: [
              { email: valid, name: '' },
              { email, name: '' },
            ],
          }),
        );
        expect(refused.kind).to.equal('bad_request');
        expect(refused.validation_errors).to.have.property('addresses[1].email');
        const { rows } = await db.query('SELECT 1 FROM customer_emails WHERE email = $1', [valid]);
        expect(rows, 'nothing is created when one address is bad').to.have.length(0);
      });
    }

    it('accepts an address of exactly 320 characters', async () => {
      const email = `${'a'.repeat(64)}@${LABEL}.${LABEL}.${LABEL}.${LABEL}`;
      expect(email).to.have.length(320);
      const { customers } = await client.FindOrCreateCustomers({ addresses: [{ email, name: '' }] });
      expect(customers[0]!.emails).to.deep.equal([email]);
    });

    it('places a new customer in the organization claiming its domain and records who created it', async () => {
      const domain = `acme${Date.now()}.example`;
      const organization = await client.CreateOrganization({
        name: `Acme ${domain}`,
        domains: [domain],
        notes: '',
      });
      const { customers } = await client.FindOrCreateCustomers(
        { addresses: [{ email: fresh(domain), name: 'Wile' }] },
        { principal: AGENT },
      );
      expect(customers[0]!.organization_id).to.equal(organization.id);
      const { rows } = await db.query('SELECT created_by, updated_by FROM customers WHERE id = $1', [
        customers[0]!.id,
      ]);
      expect(rows[0]).to.deep.equal({ created_by: 7, updated_by: 7 });
    });
  });

  describe('GetCustomer, BatchGetCustomers, ListCustomers', () => {
    it('reads one customer, several by id (unknown ones left out) and finds one by address', async () => {
      const email = fresh();
      const created = await client.CreateCustomer({ name: 'Grace', emails: [email, fresh()], notes: 'VIP' });
      const got = await client.GetCustomer({ id: created.id });
      expect(got).to.deep.equal(created);
      const batch = await client.BatchGetCustomers({ ids: [created.id, 999_999, created.id] });
      expect(batch.customers.map((c) => c.id)).to.deep.equal([created.id]);
      const found = await client.ListCustomers({ email: email.toUpperCase() });
      expect(found.customers.map((c) => c.id)).to.deep.equal([created.id]);
      expect(found.pagination).to.include({ total: 1, page: 1 });
      expect((await refusalOf(client.GetCustomer({ id: 999_999 }))).kind).to.equal('not_found');
    });

    it('lists newest first, searches name and addresses, filters by organization, clamps pages', async () => {
      const tag = `zq${Date.now()}`;
      const organization = await client.CreateOrganization({ name: `Org ${tag}`, domains: [], notes: '' });
      const first = await client.CreateCustomer({ name: `${tag} One`, emails: [fresh()], notes: '' });
      const second = await client.CreateCustomer({
        name: 'Two',
        emails: [fresh(`${tag}.example`)],
        organization_id: organization.id,
        notes: '',
      });
      const byText = await client.ListCustomers({ q: tag });
      expect(byText.customers.map((c) => c.id)).to.deep.equal([second.id, first.id]);
      const byOrganization = await client.ListCustomers({ organization_id: organization.id });
      expect(byOrganization.customers.map((c) => c.id)).to.deep.equal([second.id]);
      const clamped = await client.ListCustomers({ q: tag, page: { page: -3, per_page: 1000 } });
      expect(clamped.pagination).to.deep.equal({ total: 2, page: 1, per_page: 100, total_pages: 1 });
      const paged = await client.ListCustomers({ q: tag, page: { page: 2, per_page: 1 } });
      expect(paged.customers.map((c) => c.id)).to.deep.equal([first.id]);
      expect(paged.pagination).to.deep.equal({ total: 2, page: 2, per_page: 1, total_pages: 2 });
      const pattern = await client.ListCustomers({ q: '%' });
      expect(pattern.customers.every((c) => c.name.includes('%') || c.emails.some((e) => e.includes('%')))).to
        .be.true;
    });
  });
});
