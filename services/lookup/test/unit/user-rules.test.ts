import { expect } from 'chai';
import {
  adminLosingFields,
  changedFields,
  endsSessions,
  isValidEmail,
  normaliseEmail,
  validateNewUser,
  validateUserChanges,
} from '../../src/users/user-rules.js';
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

describe('user change rules', () => {
  const agent = { name: 'Ada', role: 'agent', isActive: true } as const;
  const admin = { name: 'Ann', role: 'admin', isActive: true } as const;

  it('validates the given fields with the rules of creation and keeps the others out', async () => {
    expect(validateUserChanges({ name: ' Bo ' })).to.deep.equal({ name: 'Bo' });
    expect(validateUserChanges({ role: 'viewer', isActive: false, password: ' pass word ' })).to.deep.equal({
      role: 'viewer',
      isActive: false,
      password: ' pass word ',
    });
    const error = await refusal(() =>
      validateUserChanges({ name: 'x'.repeat(201), role: 'root', password: 'short' }),
    );
    expect(error.validationErrors).to.deep.equal({
      name: ['Name must be at most 200 characters'],
      role: ['Role must be one of admin, team_lead, agent, viewer'],
      password: ['Password must be at least 8 characters'],
    });
  });

  it('refuses a change of nothing on body', async () => {
    for (const input of [{}, { name: undefined }]) {
      const error = await refusal(() => validateUserChanges(input));
      expect(error.validationErrors).to.deep.equal({
        body: ['Give at least one field to change: name, role, is_active or password'],
      });
    }
  });

  it('names the fields that really change, a password always, in contract order', () => {
    expect(
      changedFields(agent, { password: 'x', isActive: false, role: 'viewer', name: 'Ada L.' }),
    ).to.deep.equal(['name', 'role', 'is_active', 'password']);
    expect(changedFields(agent, { name: 'Ada', role: 'agent', isActive: true })).to.deep.equal([]);
  });

  it('ends sessions for a role, active flag or password change, not for a name', () => {
    expect(endsSessions(['name'])).to.equal(false);
    expect(endsSessions([])).to.equal(false);
    for (const field of ['role', 'is_active', 'password'] as const) {
      expect(endsSessions(['name', field]), field).to.equal(true);
    }
  });

  it('knows which changes take a user out of the active admins', () => {
    expect(adminLosingFields(admin, { isActive: false })).to.deep.equal(['is_active']);
    expect(adminLosingFields(admin, { role: 'team_lead' })).to.deep.equal(['role']);
    expect(adminLosingFields(admin, { role: 'viewer', isActive: false })).to.deep.equal([
      'is_active',
      'role',
    ]);
    expect(adminLosingFields(admin, { role: 'admin', isActive: true, name: 'A' })).to.deep.equal([]);
    expect(adminLosingFields({ ...admin, isActive: false }, { role: 'agent' })).to.deep.equal([]);
    expect(adminLosingFields(agent, { isActive: false })).to.deep.equal([]);
  });
});
