import { expect } from 'chai';
import type { Request } from 'express';
import { requestPath } from '../../src/http/routing.js';

describe('requestPath', () => {
  it('is the original path without the query, shortened when very long', () => {
    expect(requestPath({ originalUrl: '/v1/nope?x=1' } as Request)).to.equal('/v1/nope');
    expect(requestPath({ originalUrl: '/v1/nope' } as Request)).to.equal('/v1/nope');
    const long = requestPath({ originalUrl: `/${'a'.repeat(500)}` } as Request);
    expect(long).to.have.length(203);
    expect(long.endsWith('...')).to.equal(true);
  });
});
