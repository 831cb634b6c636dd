/** Envelope v1.1: actorOf (principal -> event actor) and the optional fields of newDomainEvent. */
import { expect } from 'chai';
import type { Principal } from '@tix/protos';
import { actorOf, fieldChanges, newDomainEvent } from '../../src/index.js';

function principal(overrides: Partial<Principal> = {}): Principal {
  return { kind: 'session', user_id: 7, role: 'agent', scopes: ['tickets:read'], ...overrides };
}

describe('actorOf', () => {
  it('makes a session a user, with no key', () => {
    expect(actorOf(principal())).to.deep.equal({ kind: 'user', user_id: 7, api_key_id: null });
  });

  it('makes an API key an api_key actor with its owner and key id', () => {
    expect(actorOf(principal({ kind: 'api_key', key_id: 42 }))).to.deep.equal({
      kind: 'api_key',
      user_id: 7,
      api_key_id: 42,
    });
  });

  it('makes a system principal system, keeping the user it runs as', () => {
    expect(actorOf(principal({ kind: 'system', user_id: 3 }))).to.deep.equal({
      kind: 'system',
      user_id: 3,
      api_key_id: null,
    });
  });

  it('makes the assistant an ai actor with its system user and the action it takes', () => {
    const ai = principal({ kind: 'ai', user_id: 9, via: { type: 'ai_action', id: 981 } });
    expect(actorOf(ai)).to.deep.equal({
      kind: 'ai',
      user_id: 9,
      api_key_id: null,
      via: { type: 'ai_action', id: 981 },
    });
    expect(actorOf(principal({ kind: 'ai', user_id: 9 }))).to.deep.equal({
      kind: 'ai',
      user_id: 9,
      api_key_id: null,
    });
  });

  it('passes via through for a person reverting an action, and leaves it out when absent', () => {
    expect(actorOf(principal({ via: { type: 'ai_revert', id: 981 } }))).to.deep.equal({
      kind: 'user',
      user_id: 7,
      api_key_id: null,
      via: { type: 'ai_revert', id: 981 },
    });
    expect(actorOf(principal())).not.to.have.property('via');
  });

  it('makes a call without a principal (operator tooling) system with no user', () => {
    expect(actorOf(null)).to.deep.equal({ kind: 'system', user_id: null, api_key_id: null });
    expect(actorOf(undefined)).to.deep.equal({ kind: 'system', user_id: null, api_key_id: null });
  });
});

describe('newDomainEvent (v1.1 fields)', () => {
  it('leaves actor, changes and defaulted_fields out when not given', () => {
    const event = newDomainEvent('ticket.updated', { id: 1 }, { source: 'tickets', projectId: 2 });
    expect(event).to.have.all.keys('id', 'type', 'occurred_at', 'source', 'project_id', 'data');
  });

  it('carries exactly what is given, outside data', () => {
    const event = newDomainEvent(
      'ticket.created',
      { id: 1 },
      {
        source: 'tickets',
        actor: { kind: 'user', user_id: 7, api_key_id: null },
        changes: {},
        defaultedFields: ['priority'],
      },
    );
    expect(event.actor).to.deep.equal({ kind: 'user', user_id: 7, api_key_id: null });
    expect(event.changes).to.deep.equal({});
    expect(event.defaulted_fields).to.deep.equal(['priority']);
    expect(event.data).to.deep.equal({ id: 1 });
    expect(event).not.to.have.property('project_id');
  });

  it('carries changes without defaulted_fields on an update', () => {
    const changes = { status: { from: 'open', to: 'closed' } };
    const event = newDomainEvent('ticket.updated', { id: 1 }, { source: 'tickets', changes });
    expect(event.changes).to.deep.equal(changes);
    expect(event).not.to.have.property('defaulted_fields');
    expect(event).not.to.have.property('actor');
  });
});

describe('fieldChanges', () => {
  const before: {
    status: string;
    tags: string[];
    custom_fields: object;
    assigned_to: number | null;
    title: string;
  } = {
    status: 'open',
    tags: ['a'],
    custom_fields: { x: 1 },
    assigned_to: null,
    title: 't',
  };

  it('lists only the fields that differ, deep-comparing arrays and objects', () => {
    const after = { ...before, status: 'closed', tags: ['a'], custom_fields: { x: 2 }, assigned_to: 5 };
    expect(
      fieldChanges(before, after, ['status', 'tags', 'custom_fields', 'assigned_to', 'title']),
    ).to.deep.equal({
      status: { from: 'open', to: 'closed' },
      custom_fields: { from: { x: 1 }, to: { x: 2 } },
      assigned_to: { from: null, to: 5 },
    });
  });

  it('is empty when nothing listed changed, and ignores unlisted fields', () => {
    expect(fieldChanges(before, { ...before, title: 'new' }, ['status', 'tags'])).to.deep.equal({});
    expect(fieldChanges(before, { ...before, tags: ['a', 'b'] }, ['tags'])).to.deep.equal({
      tags: { from: ['a'], to: ['a', 'b'] },
    });
  });
});
