import { expect } from 'chai';
import { revocationOf } from '../../src/auth/revocation-listener.js';

const event = (body: unknown) => Buffer.from(JSON.stringify(body));

describe('revocationOf', () => {
  it('reads the key of an api_key.revoked event', () => {
    expect(
      revocationOf(event({ id: 'e', type: 'api_key.revoked', data: { id: 12, revoked_at: 'x' } })),
    ).to.deep.equal({ kind: 'api_key', keyId: 12 });
  });

  it('reads the user of a user.updated event that ended their sessions, and only those', () => {
    const at = '2026-11-25T10:00:00.000Z';
    const updated = (data: object) => event({ type: 'user.updated', occurred_at: at, data });
    expect(revocationOf(updated({ id: 4, changed: ['is_active'], sessions_ended: true }))).to.deep.equal({
      kind: 'user',
      userId: 4,
      endedAt: new Date(at),
    });
    expect(revocationOf(updated({ id: 4, changed: ['name'], sessions_ended: false }))).to.deep.equal({
      kind: 'nothing',
    });
  });

  it('ignores other events and malformed bodies', () => {
    for (const content of [
      event({ type: 'ticket.created', data: { id: 12 } }),
      event({ type: 'api_key.revoked', data: { id: '12' } }),
      event({ type: 'api_key.revoked', data: { id: 1.5 } }),
      event({ type: 'api_key.revoked' }),
      event({ type: 'user.updated', occurred_at: 'x', data: { id: '4', sessions_ended: true } }),
      event({ type: 'user.updated', data: { id: 4, sessions_ended: true } }),
      event(null),
      Buffer.from('{not json'),
    ]) {
      expect(revocationOf(content)).to.equal(undefined);
    }
  });
});
