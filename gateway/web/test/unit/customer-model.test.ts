import { expect } from 'chai';
import {
  ccBody,
  customerLabel,
  customerPath,
  isEmailAddress,
  listErrors,
  organizationPath,
  parseDomains,
  parseEmails,
  pickedLabel,
  primaryEmail,
  requesterBody,
  samePick,
  type Customer,
} from '../../src/screens/customer/model';

describe('the customer screens’ helpers', () => {
  it('tells an address from other text, as the gateway shapes one', () => {
    expect(isEmailAddress(' grace@example.com ')).to.equal(true);
    expect(isEmailAddress('grace')).to.equal(false);
    expect(isEmailAddress('grace@example')).to.equal(false);
    expect(isEmailAddress('Grace <grace@example.com>')).to.equal(false);
    expect(isEmailAddress('a@b.com, c@d.com')).to.equal(false);
  });

  it('reads typed addresses and domains: any separator, lower-cased, once each, in order', () => {
    expect(parseEmails('Grace@Example.com\nada@example.org, grace@example.com; x@y.io ')).to.deep.equal([
      'grace@example.com',
      'ada@example.org',
      'x@y.io',
    ]);
    expect(parseEmails('  \n ')).to.deep.equal([]);
    expect(parseDomains('Example.com, acme.org')).to.deep.equal(['example.com', 'acme.org']);
  });

  it('names a customer by name and primary address, and an anonymised one by name alone', () => {
    const grace = { name: 'Grace Hopper', emails: ['grace@example.com', 'g@example.org'] };
    expect(primaryEmail(grace)).to.equal('grace@example.com');
    expect(customerLabel(grace)).to.equal('Grace Hopper <grace@example.com>');
    expect(customerLabel({ name: 'Deleted customer', emails: [] })).to.equal('Deleted customer');
    expect(customerLabel({ name: 'x@y.io', emails: ['x@y.io'] })).to.equal('x@y.io');
    expect(primaryEmail({ emails: [] })).to.equal(null);
  });

  it('gathers the messages of a list field and of its items, not of its neighbours', () => {
    const errors = {
      cc: ['Give at most 50 customers in cc'],
      'cc_emails.1': ['Each cc email must be an email address'],
      'requester.email': ['Requester email must be an email address'],
      ccx: ['not this one'],
    };
    expect(listErrors(errors, 'cc', 'cc_emails')).to.deep.equal([
      'Give at most 50 customers in cc',
      'Each cc email must be an email address',
    ]);
    expect(listErrors(errors, 'requester_id', 'requester')).to.deep.equal([
      'Requester email must be an email address',
    ]);
    expect(listErrors({}, 'emails')).to.deep.equal([]);
  });

  it('addresses the customer and organization pages', () => {
    expect(customerPath(5)).to.equal('/customers/5');
    expect(organizationPath(3)).to.equal('/organizations/3');
  });

  it('sends a picked requester by id or by address, and CCs as ids and addresses', () => {
    const grace = { id: 5, name: 'Grace Hopper', emails: ['grace@example.com'] } as Customer;
    expect(requesterBody(null)).to.deep.equal({});
    expect(requesterBody({ customer: grace })).to.deep.equal({ requester_id: 5 });
    expect(requesterBody({ email: 'new@example.com' })).to.deep.equal({
      requester: { email: 'new@example.com' },
    });
    expect(ccBody([])).to.deep.equal({});
    expect(ccBody([{ customer: grace }, { email: 'x@y.io' }])).to.deep.equal({
      cc: [5],
      cc_emails: ['x@y.io'],
    });
    expect(ccBody([{ email: 'x@y.io' }])).to.deep.equal({ cc_emails: ['x@y.io'] });
    expect(pickedLabel({ customer: grace })).to.equal('Grace Hopper <grace@example.com>');
    expect(pickedLabel({ email: 'x@y.io' })).to.equal('x@y.io (new)');
    expect(samePick({ customer: grace }, { customer: { ...grace, name: 'G' } })).to.equal(true);
    expect(samePick({ customer: grace }, { email: 'grace@example.com' })).to.equal(false);
    expect(samePick({ email: 'x@y.io' }, { email: 'x@y.io' })).to.equal(true);
  });
});
