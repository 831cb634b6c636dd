import { expect } from 'chai';
import { parseDomainEvent } from '../../src/events/parse-event.js';

const good = {
  id: '6f1c1d7e-5a7b-4c53-9d0e-2b6f7f1f2a10',
  type: 'ticket.created',
  occurred_at: '2026-11-21T10:00:00.000Z',
  source: 'tickets',
  project_id: 4,
  data: { id: 1 },
};

describe('parseDomainEvent', () => {
  it('accepts a well-formed event (project optional, unknown types fine)', () => {
    expect(parseDomainEvent(Buffer.from(JSON.stringify(good)))).to.deep.equal(good);
    const { project_id: _project, ...withoutProject } = good;
    expect(parseDomainEvent(JSON.stringify({ ...withoutProject, type: 'api_key.revoked' }))).to.deep.equal({
      ...withoutProject,
      type: 'api_key.revoked',
    });
  });

  it('keeps the v1.1 envelope fields (actor, changes, defaulted_fields)', () => {
    const v11 = {
      ...good,
      actor: { kind: 'api_key', user_id: 2, api_key_id: 5 },
      changes: { status: { from: 'open', to: 'closed' } },
      defaulted_fields: ['priority'],
    };
    expect(parseDomainEvent(JSON.stringify(v11))).to.deep.equal(v11);
  });

  const poison: [string, string][] = [
    [
      'an unknown actor kind',
      JSON.stringify({ ...good, actor: { kind: 'bot', user_id: 1, api_key_id: null } }),
    ],
    ['not JSON', '{oops'],
    ['not an object', '[1,2]'],
    ['no id', JSON.stringify({ ...good, id: undefined })],
    ['id not a UUID', JSON.stringify({ ...good, id: '42' })],
    ['bad type', JSON.stringify({ ...good, type: 'Ticket Created' })],
    ['bad occurred_at', JSON.stringify({ ...good, occurred_at: 'yesterday' })],
    ['project_id not an integer', JSON.stringify({ ...good, project_id: '4' })],
    ['project_id out of range', JSON.stringify({ ...good, project_id: 2 ** 31 })],
    ['data not an object', JSON.stringify({ ...good, data: 'x' })],
  ];
  for (const [label, content] of poison) {
    it(`refuses ${label}`, () => {
      expect(parseDomainEvent(content)).to.equal(null);
    });
  }
});
