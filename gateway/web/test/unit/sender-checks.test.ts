import { expect } from 'chai';
import { senderChecks } from '../../src/sender-checks';

describe('a received message’s sender checks (Admin > Mailboxes and the ticket thread)', () => {
  it('words SPF, DKIM and DMARC with their domain and policy, without a warning when DMARC passed', () => {
    expect(
      senderChecks({
        action: 'new_ticket',
        auth: {
          spf: 'pass',
          dkim: 'pass',
          dkim_domain: 'example.com',
          dmarc: 'pass',
          dmarc_policy: 'reject',
        },
      }),
    ).to.deep.equal({ line: 'SPF pass · DKIM pass (example.com) · DMARC pass (p=reject)', warning: null });
    expect(senderChecks({ auth: { spf: 'none', dkim: 'none', dmarc: 'temperror' } })).to.deep.equal({
      line: 'SPF none · DKIM none · DMARC temperror',
      warning: null,
    });
    expect(senderChecks({ auth: { spf: 'softfail' } })?.line).to.equal(
      'SPF softfail · DKIM none · DMARC none',
    );
  });

  it('warns that the sender is not verified when DMARC failed for the From domain', () => {
    const failed = senderChecks({
      untrusted: true,
      auth: {
        spf: 'fail',
        dkim: 'none',
        dmarc: 'fail',
        dmarc_domain: 'bank.example',
        dmarc_policy: 'reject',
      },
    });
    expect(failed).to.deep.equal({
      line: 'SPF fail · DKIM none · DMARC fail (p=reject)',
      warning: 'Sender not verified: DMARC failed for bank.example',
    });
    expect(senderChecks({ auth: { dmarc: 'fail' } })?.warning).to.equal('Sender not verified: DMARC failed');
    // The mail service's flag counts even where the result is worded otherwise.
    expect(
      senderChecks({ untrusted: true, auth: { dmarc: 'none', dmarc_domain: 'x.example' } })?.warning,
    ).to.equal('Sender not verified: DMARC failed for x.example');
  });

  it('answers null for an outcome without checks', () => {
    expect(senderChecks({ action: 'retry' })).to.equal(null);
    expect(senderChecks(null)).to.equal(null);
    expect(senderChecks(undefined)).to.equal(null);
    expect(senderChecks({ auth: 'pass' })).to.equal(null);
    expect(senderChecks({ auth: { spf: '', dkim: 7 } })).to.equal(null);
  });
});
