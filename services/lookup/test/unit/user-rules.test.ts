import { expect } from 'chai';
import { isValidEmail, normaliseEmail, validateNewUser } from '../../src/users/user-rules.js';
import { refusal } from './support.js';

describe('user rules', () => {
  it('lower-cases and trims the email, trims the name, keeps the password as given', () => {
    expect(
      validateNewUser({
        name: ' Bo ',
        email: ' Bo@Example.COM ',
        role: 'team_lead',
        password: ' pass word ',
      }),
    ).to.deep.equal({
      name: 'Bo',
      email: 'bo@example.com',
      role: 'team_lead',
      password: ' pass word ',
    });
    expect(validateNewUser({ name: 'Bo', email: 'bo@example.com', role: 'viewer' })).not.to.have.property(
      'password',
    );
  });

  it('accepts every role', () => {
    for (const role of ['admin', 'team_lead', 'agent', 'viewer']) {
      expect(validateNewUser({ name: 'A', email: 'a@b.io', role }).role).to.equal(role);
    }
  });

  it('reports every invalid field at once', async () => {
    const error = await refusal(() =>
      validateNewUser({ name: '', email: 'not-an-email', role: 'root', password: 'short' }),
    );
    expect(error.kind).to.equal('validation_failed');
    expect(error.validationErrors).to.deep.equal({
      name: ['Name is required'],
      email: ['Email must be a valid email address'],
      role: ['Role must be one of admin, team_lead, agent, viewer'],
      password: ['Password must be at least 8 characters'],
    });
  });

  it('requires an email and bounds name and password length', async () => {
    const error = await refusal(() =>
      validateNewUser({ name: 'x'.repeat(201), email: '  ', role: 'agent', password: 'p'.repeat(1025) }),
    );
    expect(error.validationErrors).to.deep.equal({
      name: ['Name must be at most 200 characters'],
      email: ['Email is required'],
      password: ['Password must be at most 1024 characters'],
    });
  });

  it('knows an email address when it sees one', () => {
    for (const good of ['a@b.io', 'first.last+tag@sub.example.co.uk', "o'brien@example.com"]) {
      expect(isValidEmail(good), good).to.be.true;
    }
    for (const bad of ['a@b', '@b.io', 'a@', 'a b@c.io', 'a@b..io', 'a@-b.io', `${'a'.repeat(250)}@b.io`]) {
      expect(isValidEmail(bad), bad).to.be.false;
    }
    expect(normaliseEmail(' A@B.IO ')).to.equal('a@b.io');
  });
});
