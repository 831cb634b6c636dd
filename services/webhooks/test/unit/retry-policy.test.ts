import { expect } from 'chai';
import {
  hasRetryAfter,
  isSuccessStatus,
  MAX_ATTEMPTS,
  retryDelayMs,
} from '../../src/delivery/retry-policy.js';

describe('retry policy (the spec)', () => {
  it('3 attempts in all', () => {
    expect(MAX_ATTEMPTS).to.equal(3);
    expect([1, 2, 3].map(hasRetryAfter)).to.deep.equal([true, true, false]);
  });

  it('retry 1 waits 50-100 ms and retry 2 waits 100-200 ms, over the whole jitter range', () => {
    expect(retryDelayMs(1, () => 0)).to.equal(50);
    expect(retryDelayMs(1, () => 0.999999)).to.equal(100);
    expect(retryDelayMs(2, () => 0)).to.equal(100);
    expect(retryDelayMs(2, () => 0.999999)).to.equal(200);
    for (let i = 0; i < 200; i += 1) {
      expect(retryDelayMs(1)).to.be.within(50, 100);
      expect(retryDelayMs(2)).to.be.within(100, 200);
    }
  });

  it('only 2xx succeeds (a redirect fails)', () => {
    expect([200, 201, 204, 299].every(isSuccessStatus)).to.equal(true);
    expect([100, 199, 300, 302, 304, 400, 410, 429, 500, 503].some(isSuccessStatus)).to.equal(false);
  });
});
