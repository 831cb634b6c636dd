/**
 * The customer and organization request schemas (routes/v1/customers.schemas.ts), the requester and
 * cc fields of ticket writes, and how ticket-people.ts turns them into customer ids.
 */
import { expect } from 'chai';
import { AppError, type OutgoingContext } from '@tix/kit';
import type { customer } from '@tix/protos';
import { parseBody, parseQuery } from '../../src/http/validate.js';
import {
  createCustomerBody,
  createOrganizationBody,
  listCustomersQuery,
  updateCustomerBody,
} from '../../src/routes/v1/customers.schemas.js';
import { resolveTicketPeople } from '../../src/routes/v1/ticket-people.js';
import { createTicketBody, updateTicketBody } from '../../src/routes/v1/tickets.schemas.js';
import { bodyErrors, queryErrors } from '../support/refusals.js';

describe('customer route schemas', () => {
  it('email lookups: trimmed and lower-cased; anything that could carry a second address or a header is 400', () => {
    expect(parseQuery(listCustomersQuery, { email: ' Grace@Example.COM ' })).to.deep.include({
      email: 'grace@example.com',
      page: 1,
      per_page: 50,
    });
    for (const email of [
      'grace',
      'grace@',
      '@example.com',
      'grace@example',
      'a@b.co\r\nBcc: x@y.z',
      'Grace <grace@example.com>',
      'a@example.com,b@example.com',
      'a;b@example.com',
      `${'a'.repeat(320)}@example.com`,
    ]) {
      expect(queryErrors(listCustomersQuery, { email }), email).to.deep.equal({
        email: ['email must be an email address'],
      });
    }
  });

  it('create: name and at least one address; each address once, the first primary', () => {
    expect(
      parseBody(createCustomerBody, { name: ' Grace ', emails: ['G@Example.com', 'g@example.org'] }),
    ).to.deep.equal({ name: 'Grace', emails: ['g@example.com', 'g@example.org'] });
    expect(
      bodyErrors(createCustomerBody, { name: 'G', emails: ['g@example.com', 'G@EXAMPLE.com'] }),
    ).to.deep.equal({
      emails: ['Each email address may be given once'],
    });
    expect(
      bodyErrors(createCustomerBody, {
        name: 'G',
        emails: Array.from({ length: 21 }, (_, n) => `g${n}@example.com`),
        notes: 'x'.repeat(10_001),
      }),
    ).to.deep.equal({
      emails: ['Give at most 20 email addresses'],
      notes: ['Notes must be at most 10000 characters'],
    });
  });

  it('update: organization_id null is kept (it clears); nothing given is 422', () => {
    expect(parseBody(updateCustomerBody, { organization_id: null })).to.deep.equal({ organization_id: null });
    expect(bodyErrors(updateCustomerBody, { unknown: 1 })).to.have.keys('body');
  });

  it('organizations: domains lower-cased and deduplicated; a non-domain is 422 at its index', () => {
    expect(
      parseBody(createOrganizationBody, { name: 'Acme', domains: ['Acme.Example', '@acme.example'] }),
    ).to.deep.equal({ name: 'Acme', domains: ['acme.example'] });
    expect(
      bodyErrors(createOrganizationBody, {
        name: 'Acme',
        domains: ['ok.example', 'no spaces.example', '-x.example'],
      }),
    ).to.deep.equal({
      'domains[1]': ['Each domain must be a domain name such as example.com'],
      'domains[2]': ['Each domain must be a domain name such as example.com'],
    });
  });

  it('ticket writes: requester or requester_id, not both; cc deduplicated; at most 50', () => {
    const base = { ticket_type_id: 1, title: 'Help' };
    expect(
      parseBody(createTicketBody, { ...base, cc: [3, 3, 4], cc_emails: ['A@example.com', 'a@example.com'] }),
    ).to.deep.include({ cc: [3, 4], cc_emails: ['a@example.com'] });
    expect(
      bodyErrors(createTicketBody, { ...base, requester_id: null, requester: { email: 'a@example.com' } }),
    ).to.deep.equal({ requester: ['Give requester or requester_id, not both'] });
    expect(
      bodyErrors(updateTicketBody, { requester_id: 1, requester: { email: 'a@example.com' } }),
    ).to.deep.equal({ requester: ['Give requester or requester_id, not both'] });
    expect(
      bodyErrors(createTicketBody, { ...base, cc: Array.from({ length: 51 }, (_, n) => n + 1) }),
    ).to.deep.equal({
      cc: ['Give at most 50 customers in cc'],
    });
    expect(bodyErrors(createTicketBody, { ...base, requester: 'a@example.com' })).to.deep.equal({
      requester: ['Requester must be an object with email (and optionally name)'],
    });
    expect(parseBody(updateTicketBody, { requester_id: null })).to.deep.equal({ requester_id: null });
  });
});

describe('ticket people (requester and cc to customer ids)', () => {
  const call = {} as OutgoingContext;
  function fakeCustomers(known: customer.Customer__Output[]) {
    const calls: string[] = [];
    let nextId = 900;
    const services = {
      customers: {
        BatchGetCustomers: (request: customer.BatchGetCustomersRequest) => {
          calls.push('BatchGetCustomers');
          return Promise.resolve({ customers: known.filter((one) => request.ids!.includes(one.id)) });
        },
        FindOrCreateCustomers: (request: customer.FindOrCreateCustomersRequest) => {
          calls.push('FindOrCreateCustomers');
          return Promise.resolve({
            customers: request.addresses!.map(
              ({ email }) =>
                known.find((one) => one.emails.includes(email!)) ?? { ...person(nextId++), emails: [email!] },
            ),
          });
        },
      },
    } as never;
    return { services, calls };
  }
  const person = (id: number, extra: Partial<customer.Customer__Output> = {}): customer.Customer__Output => ({
    id,
    name: `c${id}`,
    emails: [`c${id}@example.com`],
    notes: '',
    deleted: false,
    created_at: '',
    updated_at: '',
    ...extra,
  });

  it('names nobody: no call, nothing changes', async () => {
    const { services, calls } = fakeCustomers([]);
    expect(await resolveTicketPeople({}, services, call)).to.deep.equal({});
    expect(await resolveTicketPeople({ requester_id: null }, services, call)).to.deep.equal({
      requester_id: null,
    });
    expect(await resolveTicketPeople({ cc: [] }, services, call)).to.deep.equal({ cc: [] });
    expect(calls).to.deep.equal([]);
  });

  it('ids: merged ones stand for their target; unknown and deleted ones are 422 under their field', async () => {
    const { services } = fakeCustomers([
      person(1),
      person(2, { merged_into: 1 }),
      person(3, { deleted: true }),
    ]);
    expect(await resolveTicketPeople({ requester_id: 2, cc: [1, 2] }, services, call)).to.deep.equal({
      requester_id: 1,
      cc: [1],
    });
    try {
      await resolveTicketPeople({ requester_id: 3, cc: [1, 4, 5] }, services, call);
      expect.fail('expected a refusal');
    } catch (error) {
      expect(error).to.be.instanceOf(AppError);
      expect((error as AppError).httpStatus).to.equal(422);
      expect((error as AppError).validationErrors).to.deep.equal({
        requester_id: ['No customer with id 3'],
        cc: ['No customers with ids 4, 5'],
      });
    }
  });

  it('addresses: one FindOrCreateCustomers call for the requester and cc_emails, joined after cc', async () => {
    const { services, calls } = fakeCustomers([person(1), person(7)]);
    const people = await resolveTicketPeople(
      { requester: { email: 'c7@example.com' }, cc: [1], cc_emails: ['new@example.com', 'c1@example.com'] },
      services,
      call,
    );
    expect(people).to.deep.equal({ requester_id: 7, cc: [1, 900] });
    expect(calls).to.deep.equal(['BatchGetCustomers', 'FindOrCreateCustomers']);
  });
});
