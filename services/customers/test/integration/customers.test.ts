/**
 * The customer service through gRPC on a real PostgreSQL: finding and creating customers by
 * address (race-safe), reading, listing, the address rules, updates, merges and the anonymising
 * delete.
 */
import { expect } from 'chai';
import * as grpc from '@grpc/grpc-js';
import pg from 'pg';
import { createServiceClient, type ServiceClient } from '@tix/kit';
import { outboxMark, outboxSince, refusalOf } from '@tix/kit/testing';
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
      it(`refuses an address that is ${label} with INVALID_ARGUMENT naming it`, async () => {
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

    it('answers the gRPC status INVALID_ARGUMENT itself (not INTERNAL) to a header injection', async () => {
      const code = await new Promise<number | undefined>((resolve) => {
        client.raw.FindOrCreateCustomers(
          { addresses: [{ email: 'a@b.c\r\nBcc: x@y.z', name: '' }] },
          client.callOptions(),
          (error: grpc.ServiceError | null) => resolve(error?.code),
        );
      });
      expect(code).to.equal(grpc.status.INVALID_ARGUMENT);
    });

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

  describe('CreateCustomer and UpdateCustomer', () => {
    it('stores addresses lower-cased, the first primary, duplicates once, and records the author', async () => {
      const [a, b] = [fresh(), fresh()];
      const created = await client.CreateCustomer(
        { name: '  Ada Lovelace  ', emails: [a.toUpperCase(), b, ` ${a} `], notes: 'line one\nline two' },
        { principal: AGENT },
      );
      expect(created).to.include({ name: 'Ada Lovelace', notes: 'line one\nline two', deleted: false });
      expect(created.emails).to.deep.equal([a, b]);
      const { rows } = await db.query(
        'SELECT email, "primary", created_by FROM customer_emails WHERE customer_id = $1 ORDER BY id',
        [created.id],
      );
      expect(rows).to.deep.equal([
        { email: a, primary: true, created_by: 7 },
        { email: b, primary: false, created_by: 7 },
      ]);
    });

    it('refuses an address another customer holds with 409, whatever its case', async () => {
      const email = fresh();
      await client.CreateCustomer({ name: 'First', emails: [email], notes: '' });
      const refused = await refusalOf(
        client.CreateCustomer({ name: 'Second', emails: [fresh(), email.toUpperCase()], notes: '' }),
      );
      expect(refused).to.deep.equal({
        kind: 'conflict',
        message: `Email address ${email} belongs to another customer`,
      });
      const other = await client.CreateCustomer({ name: 'Third', emails: [fresh()], notes: '' });
      const onUpdate = await refusalOf(client.UpdateCustomer({ id: other.id, emails: { values: [email] } }));
      expect(onUpdate.kind).to.equal('conflict');
      expect((await client.GetCustomer({ id: other.id })).emails).to.not.include(email);
    });

    it('refuses a bad name, address, notes or organization with 422 naming each field', async () => {
      const refused = await refusalOf(
        client.CreateCustomer({
          name: '   ',
          emails: ['not-an-address', 'a@b.c\r\nBcc: x@y.z'],
          notes: 'n'.repeat(10_001),
        }),
      );
      expect(refused.kind).to.equal('validation_failed');
      expect(refused.validation_errors).to.have.all.keys('name', 'emails[0]', 'emails[1]', 'notes');
      expect(
        (await refusalOf(client.CreateCustomer({ name: 'x', emails: [], notes: '' }))).validation_errors,
      ).to.have.key('emails');
      const long = await refusalOf(
        client.CreateCustomer({ name: 'n'.repeat(256), emails: [fresh()], notes: '' }),
      );
      expect(long.validation_errors).to.have.key('name');
      const injected = await refusalOf(
        client.CreateCustomer({ name: 'Eve\r\nBcc: x@y.z', emails: [fresh()], notes: '' }),
      );
      expect(injected.validation_errors).to.have.key('name');
      const ok = await client.CreateCustomer({
        name: ` ${'n'.repeat(255)} `,
        emails: [fresh()],
        notes: 'n'.repeat(10_000),
      });
      expect(ok.name).to.have.length(255);
      const unknownOrganization = await refusalOf(
        client.CreateCustomer({ name: 'x', emails: [fresh()], organization_id: 999_999, notes: '' }),
      );
      expect(unknownOrganization.validation_errors).to.have.key('organization_id');
    });

    it('matches the organization by the primary address domain unless one is set', async () => {
      const domain = `match${Date.now()}.example`;
      const matching = await client.CreateOrganization({
        name: `Match ${domain}`,
        domains: [domain],
        notes: '',
      });
      const chosen = await client.CreateOrganization({ name: `Chosen ${domain}`, domains: [], notes: '' });
      const byDomain = await client.CreateCustomer({ name: 'a', emails: [fresh(domain)], notes: '' });
      expect(byDomain.organization_id).to.equal(matching.id);
      const secondary = await client.CreateCustomer({
        name: 'b',
        emails: [fresh(), fresh(domain)],
        notes: '',
      });
      expect(secondary.organization_id, 'only the primary address counts').to.equal(undefined);
      const set = await client.CreateCustomer({
        name: 'c',
        emails: [fresh(domain)],
        organization_id: chosen.id,
        notes: '',
      });
      expect(set.organization_id).to.equal(chosen.id);
    });

    it('updates only the fields present: name, notes, addresses (first primary) and organization', async () => {
      const organization = await client.CreateOrganization({
        name: `Upd ${Date.now()}`,
        domains: [],
        notes: '',
      });
      const [a, b, c] = [fresh(), fresh(), fresh()];
      const created = await client.CreateCustomer({ name: 'Before', emails: [a, b], notes: 'keep' });
      const renamed = await client.UpdateCustomer({ id: created.id, name: ' After ' }, { principal: AGENT });
      expect(renamed).to.include({ name: 'After', notes: 'keep' });
      expect(renamed.emails).to.deep.equal([a, b]);
      const readdressed = await client.UpdateCustomer({
        id: created.id,
        emails: { values: [c, b] },
        organization_id: { value: organization.id },
      });
      expect(readdressed.emails).to.deep.equal([c, b]);
      expect(readdressed.organization_id).to.equal(organization.id);
      const { rows } = await db.query(
        'SELECT email FROM customer_emails WHERE customer_id = $1 AND "primary"',
        [created.id],
      );
      expect(rows).to.deep.equal([{ email: c }]);
      const freed = await client.FindOrCreateCustomers({ addresses: [{ email: a, name: '' }] });
      expect(freed.customers[0]!.id, 'a removed address is free again').to.not.equal(created.id);
      const cleared = await client.UpdateCustomer({ id: created.id, organization_id: {} });
      expect(cleared.organization_id).to.equal(undefined);
      const swapped = await client.UpdateCustomer({ id: created.id, emails: { values: [b, c] } });
      expect(swapped.emails).to.deep.equal([b, c]);
      expect(
        (await refusalOf(client.UpdateCustomer({ id: created.id, emails: { values: [] } })))
          .validation_errors,
      ).to.have.key('emails');
      expect((await refusalOf(client.UpdateCustomer({ id: 999_999, name: 'x' }))).kind).to.equal('not_found');
      const { rows: audit } = await db.query('SELECT created_by, updated_by FROM customers WHERE id = $1', [
        created.id,
      ]);
      expect(audit[0]).to.deep.equal({ created_by: null, updated_by: null });
    });

    it('lets one of two concurrent creates claim an address; the other is 409', async () => {
      const email = fresh();
      const results = await Promise.allSettled(
        ['One', 'Two'].map((name) => client.CreateCustomer({ name, emails: [email], notes: '' })),
      );
      expect(results.map((result) => result.status).sort()).to.deep.equal(['fulfilled', 'rejected']);
      const rejected = results.find((result) => result.status === 'rejected') as PromiseRejectedResult;
      expect((rejected.reason as { kind: string }).kind).to.equal('conflict');
      expect((await client.ListCustomers({ email })).customers).to.have.length(1);
    });

    it('never deadlocks two creates claiming the same addresses in opposite orders (one wins, one 409)', async () => {
      for (let round = 0; round < 10; round++) {
        const addresses = Array.from({ length: 6 }, () => fresh());
        const results = await Promise.allSettled([
          client.CreateCustomer({ name: 'Forward', emails: addresses, notes: '' }),
          client.CreateCustomer({ name: 'Backward', emails: [...addresses].reverse(), notes: '' }),
        ]);
        const kinds = results.map((result) =>
          result.status === 'fulfilled' ? 'created' : (result.reason as { kind: string }).kind,
        );
        expect(kinds.sort(), `round ${round}`).to.deep.equal(['conflict', 'created']);
      }
    });

    it('answers 400 to too many addresses or ids at once, and ignores ids that name nobody', async () => {
      const addresses = Array.from({ length: 101 }, () => ({ email: fresh(), name: '' }));
      expect((await refusalOf(client.FindOrCreateCustomers({ addresses }))).kind).to.equal('bad_request');
      const ids = Array.from({ length: 1001 }, (_, index) => index + 1);
      expect((await refusalOf(client.BatchGetCustomers({ ids }))).kind).to.equal('bad_request');
      expect((await client.BatchGetCustomers({ ids: [0, -5] })).customers).to.deep.equal([]);
      expect((await client.FindOrCreateCustomers({ addresses: [] })).customers).to.deep.equal([]);
    });

    it('answers 400, never 500, to search parameters PostgreSQL would refuse', async () => {
      expect((await refusalOf(client.ListCustomers({ q: 'a\u0000b' }))).kind).to.equal('bad_request');
      expect((await refusalOf(client.ListCustomers({ email: 'a\u0000@b.c' }))).kind).to.equal('bad_request');
      expect((await refusalOf(client.ListCustomers({ q: 'q'.repeat(201) }))).kind).to.equal('bad_request');
      expect((await client.ListCustomers({ email: 'nobody@nowhere.example' })).customers).to.deep.equal([]);
    });
  });

  describe('MergeCustomers', () => {
    it('moves the addresses (and the organization when the target has none) and leaves a tombstone', async () => {
      const organization = await client.CreateOrganization({
        name: `Merge ${Date.now()}`,
        domains: [],
        notes: '',
      });
      const [s1, s2, t1] = [fresh(), fresh(), fresh()];
      const source = await client.CreateCustomer({
        name: 'Source',
        emails: [s1, s2],
        organization_id: organization.id,
        notes: '',
      });
      const target = await client.CreateCustomer({ name: 'Target', emails: [t1], notes: '' });
      const mark = await outboxMark(db);
      const merged = await client.MergeCustomers(
        { source_id: source.id, target_id: target.id },
        { principal: AGENT },
      );
      expect(merged.id).to.equal(target.id);
      expect(merged.emails).to.deep.equal([t1, s1, s2]);
      expect(merged.organization_id).to.equal(organization.id);
      expect(await client.GetCustomer({ id: source.id })).to.deep.equal(merged);
      const [tombstone] = (await client.BatchGetCustomers({ ids: [source.id] })).customers;
      expect(tombstone).to.include({ merged_into: target.id, deleted: false });
      expect(tombstone!.emails).to.deep.equal([]);
      const found = await client.FindOrCreateCustomers({ addresses: [{ email: s2, name: '' }] });
      expect(found.customers[0]!.id).to.equal(target.id);
      const listed = await client.ListCustomers({ q: 'Source' });
      expect(listed.customers.map((c) => c.id)).to.not.include(source.id);
      const { rows } = await db.query('SELECT updated_by FROM customers WHERE id = ANY($1) ORDER BY id', [
        [source.id, target.id],
      ]);
      expect(rows).to.deep.equal([{ updated_by: 7 }, { updated_by: 7 }]);
      // One customer.merged, written with the merge: who merged, the target as the API shows it.
      const events = await outboxSince(db, mark);
      expect(events.map((event) => event.event_type)).to.deep.equal(['customer.merged']);
      expect(events[0]!.payload).to.deep.include({
        type: 'customer.merged',
        source: 'customers',
        actor: { kind: 'user', user_id: 7, api_key_id: null },
        data: {
          id: target.id,
          name: 'Target',
          emails: [t1, s1, s2],
          organization_id: organization.id,
          notes: '',
          created_at: merged.created_at,
          updated_at: merged.updated_at,
          source_id: source.id,
          merged_ids: [source.id],
        },
      });
      expect(events[0]!.payload).to.not.have.property('project_id');
    });

    it('keeps the target organization and follows a chain of merges', async () => {
      const [first, second] = await Promise.all([
        client.CreateOrganization({ name: `Keep A ${Date.now()}`, domains: [], notes: '' }),
        client.CreateOrganization({ name: `Keep B ${Date.now()}`, domains: [], notes: '' }),
      ]);
      const a = await client.CreateCustomer({
        name: 'A',
        emails: [fresh()],
        organization_id: first.id,
        notes: '',
      });
      const b = await client.CreateCustomer({
        name: 'B',
        emails: [fresh()],
        organization_id: second.id,
        notes: '',
      });
      const c = await client.CreateCustomer({ name: 'C', emails: [fresh()], notes: '' });
      expect((await client.MergeCustomers({ source_id: a.id, target_id: b.id })).organization_id).to.equal(
        second.id,
      );
      const mark = await outboxMark(db);
      await client.MergeCustomers({ source_id: b.id, target_id: c.id });
      // Without a principal the actor is the system; the older tombstone (a) is named too.
      const [event] = await outboxSince(db, mark);
      expect(event!.payload).to.deep.include({
        actor: { kind: 'system', user_id: null, api_key_id: null },
      });
      expect(event!.payload.data).to.include({ id: c.id, source_id: b.id });
      expect((event!.payload.data as { merged_ids: number[] }).merged_ids).to.deep.equal([b.id, a.id]);
      expect((await client.GetCustomer({ id: a.id })).id).to.equal(c.id);
      expect((await client.GetCustomer({ id: b.id })).id).to.equal(c.id);
    });

    it('refuses a merge into itself, from or into a deleted or merged customer with 422 naming the field', async () => {
      const a = await client.CreateCustomer({ name: 'A', emails: [fresh()], notes: '' });
      const b = await client.CreateCustomer({ name: 'B', emails: [fresh()], notes: '' });
      const gone = await client.CreateCustomer({ name: 'Gone', emails: [fresh()], notes: '' });
      const tomb = await client.CreateCustomer({ name: 'Tomb', emails: [fresh()], notes: '' });
      await client.DeleteCustomer({ id: gone.id });
      await client.MergeCustomers({ source_id: tomb.id, target_id: b.id });
      const cases: [number, number, string][] = [
        [a.id, a.id, 'target_id'],
        [gone.id, a.id, 'source_id'],
        [a.id, gone.id, 'target_id'],
        [tomb.id, a.id, 'source_id'],
        [a.id, tomb.id, 'target_id'],
        [999_999, a.id, 'source_id'],
      ];
      const mark = await outboxMark(db);
      for (const [sourceId, targetId, field] of cases) {
        const refused = await refusalOf(client.MergeCustomers({ source_id: sourceId, target_id: targetId }));
        expect(refused.kind, `${sourceId} -> ${targetId}`).to.equal('validation_failed');
        expect(refused.validation_errors).to.have.key(field);
      }
      expect((await client.GetCustomer({ id: a.id })).emails).to.deep.equal(a.emails);
      expect(await outboxSince(db, mark), 'a refused merge writes no event').to.deep.equal([]);
    });
  });

  describe('DeleteCustomer', () => {
    it('anonymises in place: name, addresses, notes and organization removed, id kept, then NOT_FOUND', async () => {
      const organization = await client.CreateOrganization({
        name: `Del ${Date.now()}`,
        domains: [],
        notes: '',
      });
      const email = fresh();
      const created = await client.CreateCustomer({
        name: 'Private Person',
        emails: [email],
        organization_id: organization.id,
        notes: 'secret',
      });
      expect(await client.DeleteCustomer({ id: created.id }, { principal: AGENT })).to.deep.equal({
        message: 'Customer deleted',
      });
      expect((await refusalOf(client.GetCustomer({ id: created.id }))).kind).to.equal('not_found');
      expect((await refusalOf(client.DeleteCustomer({ id: created.id }))).kind).to.equal('not_found');
      expect((await refusalOf(client.UpdateCustomer({ id: created.id, name: 'x' }))).kind).to.equal(
        'not_found',
      );
      const [anonymised] = (await client.BatchGetCustomers({ ids: [created.id] })).customers;
      expect(anonymised).to.include({ id: created.id, name: 'Deleted customer', notes: '', deleted: true });
      expect(anonymised!.emails).to.deep.equal([]);
      expect(anonymised!.organization_id).to.equal(undefined);
      expect((await client.ListCustomers({ email })).customers).to.deep.equal([]);
      expect((await client.ListCustomers({ organization_id: organization.id })).customers).to.deep.equal([]);
      const { rows } = await db.query(
        `SELECT name, notes, deleted, updated_by, (SELECT count(*)::int FROM customer_emails WHERE customer_id = $1) AS emails
         FROM customers WHERE id = $1`,
        [created.id],
      );
      expect(rows[0]).to.deep.equal({
        name: 'Deleted customer',
        notes: '',
        deleted: true,
        updated_by: 7,
        emails: 0,
      });
      const again = await client.FindOrCreateCustomers({ addresses: [{ email, name: '' }] });
      expect(again.customers[0]!.id, 'the address may start a new customer').to.not.equal(created.id);
    });

    it('answers 422 for a merged tombstone (its target is the one to delete)', async () => {
      const a = await client.CreateCustomer({ name: 'A', emails: [fresh()], notes: '' });
      const b = await client.CreateCustomer({ name: 'B', emails: [fresh()], notes: '' });
      await client.MergeCustomers({ source_id: a.id, target_id: b.id });
      expect((await refusalOf(client.DeleteCustomer({ id: a.id }))).kind).to.equal('validation_failed');
      expect((await client.GetCustomer({ id: b.id })).id).to.equal(b.id);
    });
  });
});
