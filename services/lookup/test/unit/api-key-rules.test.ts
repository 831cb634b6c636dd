import { expect } from 'chai';
import { FieldErrors } from '@tix/kit';
import { checkKeyName, checkScopes, defaultKeyName } from '../../src/api-keys/api-key-rules.js';
import { refusal } from './support.js';

describe('API key rules', () => {
  it('returns the scopes de-duplicated, in the canonical order', () => {
    const errors = new FieldErrors();
    expect(
      checkScopes(errors, ['comments:read', 'tickets:read', 'comments:read', ' tickets:write ']),
    ).to.deep.equal(['tickets:read', 'tickets:write', 'comments:read']);
    expect(errors.isEmpty).to.be.true;
  });

  it('requires at least one scope and names unknown ones', async () => {
    const errors = new FieldErrors();
    checkScopes(errors, ['', ' ']);
    expect((await refusal(() => errors.throwIfAny())).validationErrors).to.deep.equal({
      scopes: [
        'At least one scope is required (tickets:read, tickets:write, tickets:delete, comments:read, comments:write, customers:read, customers:write)',
      ],
    });
    const unknown = new FieldErrors();
    checkScopes(unknown, ['tickets:read', 'admin', 'Tickets:Write']);
    expect((await refusal(() => unknown.throwIfAny())).validationErrors).to.deep.equal({
      scopes: [
        'Unknown scope "admin"; allowed: tickets:read, tickets:write, tickets:delete, comments:read, comments:write, customers:read, customers:write',
        'Unknown scope "Tickets:Write"; allowed: tickets:read, tickets:write, tickets:delete, comments:read, comments:write, customers:read, customers:write',
      ],
    });
  });

  it('names unnamed keys after their creation time and bounds names', async () => {
    const now = new Date('2026-03-04T05:06:07.890Z');
    expect(defaultKeyName(now)).to.equal('key created 2026-03-04 05:06 UTC');
    const errors = new FieldErrors();
    expect(checkKeyName(errors, '  ', now)).to.equal('key created 2026-03-04 05:06 UTC');
    expect(checkKeyName(errors, ' CI deploy ', now)).to.equal('CI deploy');
    expect(errors.isEmpty).to.be.true;
    checkKeyName(errors, 'n'.repeat(201), now);
    expect((await refusal(() => errors.throwIfAny())).validationErrors).to.deep.equal({
      name: ['Name must be at most 200 characters'],
    });
  });
});

describe('API key rules: hostile input', () => {
  it('names at most five unknown scopes, each cut short, and counts the rest', async () => {
    const errors = new FieldErrors();
    checkScopes(
      errors,
      Array.from({ length: 8 }, (_, i) => `s${i}${'x'.repeat(100)}`),
    );
    const messages = (await refusal(() => errors.throwIfAny())).validationErrors!.scopes as string[];
    expect(messages).to.have.length(6);
    expect(messages[0]).to.equal(
      `Unknown scope "s0${'x'.repeat(62)}…"; allowed: tickets:read, tickets:write, tickets:delete, comments:read, comments:write, customers:read, customers:write`,
    );
    expect(messages[5]).to.equal('... and 3 more unknown scopes');
  });
});
