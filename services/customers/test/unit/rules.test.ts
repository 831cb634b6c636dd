/** The customer service's input rules: one address syntax, domains, names from addresses, search text. */
import { expect } from 'chai';
import { AppError, FieldErrors } from '@tix/kit';
import {
  checkEmails,
  checkSearchText,
  containsPattern,
  nameForAddress,
  normaliseDomain,
  normaliseEmail,
} from '../../src/rules.js';

const LABEL = 'x'.repeat(63);

describe('customer rules', () => {
  describe('normaliseEmail', () => {
    it('lower-cases and trims spaces', () => {
      expect(normaliseEmail('  Jane.Doe+Tix@Example.COM ')).to.equal('jane.doe+tix@example.com');
    });

    for (const bad of [
      '',
      '   ',
      'plain',
      '@example.com',
      'a@',
      'a@localhost',
      'a@b@c.com',
      'a b@example.com',
      'a@exa mple.com',
      'a@-example.com',
      'a@example-.com',
      'a@b.c\r\nBcc: x@y.z',
      'a@b.c\n',
      '\ta@b.c\u0000',
      '"quoted"@example.com',
      `${'l'.repeat(65)}@example.com`,
      `${'l'.repeat(64)}@${LABEL}.${LABEL}.${LABEL}.${'y'.repeat(62)}.z`,
    ]) {
      it(`refuses ${JSON.stringify(bad.length > 40 ? `${bad.slice(0, 30)}... (${bad.length})` : bad)}`, () => {
        expect(normaliseEmail(bad)).to.equal(null);
      });
    }

    it('accepts 320 characters with a 64-character local part', () => {
      const email = `${'l'.repeat(64)}@${LABEL}.${LABEL}.${LABEL}.${LABEL}`;
      expect(email).to.have.length(320);
      expect(normaliseEmail(email)).to.equal(email);
    });
  });

  it('normaliseDomain: lower-cased, a leading @ dropped, a dot required', () => {
    expect(normaliseDomain(' @Example.ORG ')).to.equal('example.org');
    expect(normaliseDomain('localhost')).to.equal(null);
    expect(normaliseDomain('a@b.com')).to.equal(null);
    expect(normaliseDomain('exa\nmple.com')).to.equal(null);
  });

  it('checkEmails: at least one, duplicates (any case) once, each bad one named by index', () => {
    const errors = new FieldErrors();
    expect(checkEmails(errors, 'emails', ['A@x.com', 'b@x.com', 'a@X.com'])).to.deep.equal([
      'a@x.com',
      'b@x.com',
    ]);
    expect(errors.isEmpty).to.equal(true);
    const bad = new FieldErrors();
    checkEmails(bad, 'emails', ['ok@x.com', 'nope']);
    expect(() => bad.throwIfAny())
      .to.throw(AppError)
      .with.property('validationErrors')
      .that.has.key('emails[1]');
    const none = new FieldErrors();
    checkEmails(none, 'emails', []);
    expect(none.has('emails')).to.equal(true);
  });

  it('nameForAddress: a safe display name, else the local part, never longer than 255', () => {
    expect(nameForAddress('jane@x.com', '')).to.equal('jane');
    expect(nameForAddress('jane@x.com', ' \r\n ')).to.equal('jane');
    expect(nameForAddress('jane@x.com', 'Jane\r\nBcc: evil@x.com')).to.equal('Jane Bcc: evil@x.com');
    expect(Array.from(nameForAddress('jane@x.com', '😀'.repeat(300)))).to.have.length(255);
  });

  it('checkSearchText: trimmed; too long or with control characters is 400', () => {
    expect(checkSearchText('q', '  text ', 10)).to.equal('text');
    expect(checkSearchText('q', undefined, 10)).to.equal('');
    for (const bad of ['x'.repeat(11), 'a\u0000b']) {
      expect(() => checkSearchText('q', bad, 10))
        .to.throw(AppError)
        .with.property('kind', 'bad_request');
    }
  });

  it('containsPattern escapes LIKE wildcards', () => {
    expect(containsPattern('50%_off\\')).to.equal('%50\\%\\_off\\\\%');
  });
});
