import { expect } from 'chai';
import { Metadata } from '@grpc/grpc-js';
import { outgoingMetadata, readIdempotency } from '../../src/index.js';

describe('gRPC metadata: claimed Idempotency-Key', () => {
  const scope = 'a'.repeat(64);
  const fingerprint = '0123456789abcdef'.repeat(4);

  it('round-trips the scope and fingerprint', () => {
    const metadata = outgoingMetadata({ correlationId: 'c', idempotency: { scope, fingerprint } });
    expect(metadata.get('x-idempotency-scope')).to.deep.equal([scope]);
    expect(readIdempotency(metadata)).to.deep.equal({ scope, fingerprint });
  });

  it('is null without a key, and sends no headers', () => {
    const metadata = outgoingMetadata({ correlationId: 'c' });
    expect(metadata.get('x-idempotency-scope')).to.deep.equal([]);
    expect(readIdempotency(metadata)).to.equal(null);
  });

  it('ignores malformed or half-present hashes; upper case is read as lower case', () => {
    const read = (values: Record<string, string>) => {
      const metadata = new Metadata();
      for (const [name, value] of Object.entries(values)) metadata.set(name, value);
      return readIdempotency(metadata);
    };
    expect(read({ 'x-idempotency-scope': scope })).to.equal(null);
    expect(read({ 'x-idempotency-scope': scope, 'x-idempotency-fingerprint': 'abc' })).to.equal(null);
    expect(read({ 'x-idempotency-scope': `${scope}0`, 'x-idempotency-fingerprint': fingerprint })).to.equal(
      null,
    );
    expect(
      read({ 'x-idempotency-scope': 'g'.repeat(64), 'x-idempotency-fingerprint': fingerprint }),
    ).to.equal(null);
    expect(
      read({ 'x-idempotency-scope': 'A'.repeat(64), 'x-idempotency-fingerprint': fingerprint }),
    ).to.deep.equal({ scope, fingerprint });
  });
});
