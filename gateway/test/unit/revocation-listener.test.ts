import { expect } from 'chai';
import { revokedKeyId } from '../../src/auth/revocation-listener.js';

const event = (body: unknown) => Buffer.from(JSON.stringify(body));

describe('revokedKeyId', () => {
  it('reads data.id of an api_key.revoked event', () => {
    expect(
      revokedKeyId(event({ id: 'e', type: 'api_key.revoked', data: { id: 12, revoked_at: 'x' } })),
    ).to.equal(12);
  });

  it('ignores other events and malformed bodies', () => {
    for (const content of [
      event({ type: 'ticket.created', data: { id: 12 } }),
      event({ type: 'api_key.revoked', data: { id: '12' } }),
      event({ type: 'api_key.revoked', data: { id: 1.5 } }),
      event({ type: 'api_key.revoked' }),
      event(null),
      Buffer.from('{not json'),
    ]) {
      expect(revokedKeyId(content)).to.equal(undefined);
    }
  });
});
