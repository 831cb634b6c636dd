import { expect } from 'chai';
import { Metadata } from '@grpc/grpc-js';
import type { Principal } from '@tix/protos';
import { isCorrelationId, outgoingMetadata, readCorrelationId, readPrincipal } from '../../src/index.js';

describe('gRPC metadata', () => {
  const principal: Principal = {
    kind: 'api_key',
    user_id: 7,
    role: 'agent',
    scopes: ['tickets:read'],
    key_id: 3,
    project_id: 2,
  };

  it('round-trips the correlation id and the principal', () => {
    const metadata = outgoingMetadata({ correlationId: 'abc-123', principal });
    expect(readCorrelationId(metadata)).to.equal('abc-123');
    expect(readPrincipal(metadata)).to.deep.equal(principal);
  });

  it('ignores a malformed principal or correlation id', () => {
    const metadata = new Metadata();
    metadata.set('tix-principal', JSON.stringify({ ...principal, role: 'superuser' }));
    metadata.set('x-correlation-id', 'has spaces in it');
    expect(readPrincipal(metadata)).to.equal(null);
    expect(readCorrelationId(metadata)).to.equal(undefined);
    metadata.set('tix-principal', '{not json');
    expect(readPrincipal(metadata)).to.equal(null);
  });

  it('round-trips an ai principal and a via', () => {
    const ai: Principal = {
      kind: 'ai',
      user_id: 9,
      role: 'agent',
      scopes: ['tickets:read', 'tickets:write'],
      via: { type: 'ai_action', id: 981 },
    };
    expect(readPrincipal(outgoingMetadata({ principal: ai }))).to.deep.equal(ai);
    const reverting: Principal = { ...principal, kind: 'session', via: { type: 'ai_revert', id: 981 } };
    expect(readPrincipal(outgoingMetadata({ principal: reverting }))).to.deep.equal(reverting);
  });

  it('refuses a principal of an unknown kind or with a malformed via', () => {
    const refused = [
      { ...principal, kind: 'robot' },
      { ...principal, kind: undefined },
      { ...principal, via: { type: 'ai_guess', id: 1 } },
      { ...principal, via: { type: 'ai_action', id: 0 } },
      { ...principal, via: { type: 'ai_action', id: '5' } },
      { ...principal, via: null },
    ];
    for (const value of refused) {
      const metadata = new Metadata();
      metadata.set('tix-principal', JSON.stringify(value));
      expect(readPrincipal(metadata), JSON.stringify(value)).to.equal(null);
    }
  });

  it('accepts only short printable correlation ids', () => {
    expect(isCorrelationId('req_01HX-abc.def:42')).to.equal(true);
    expect(isCorrelationId('')).to.equal(false);
    expect(isCorrelationId('x'.repeat(129))).to.equal(false);
    expect(isCorrelationId('line\nbreak')).to.equal(false);
  });
});
