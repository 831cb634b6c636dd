import { expect } from 'chai';
import { Backoff, backoffDelay, RECONNECT_BACKOFF } from '../../src/index.js';

describe('reconnect backoff', () => {
  it('doubles from the initial delay up to the cap, each delay jittered within the upper half', () => {
    const policy = { initialMs: 100, maxMs: 1_000 };
    const ceilings = [100, 200, 400, 800, 1_000, 1_000];
    for (let round = 0; round < 200; round += 1) {
      ceilings.forEach((ceiling, attempt) => {
        expect(backoffDelay(attempt, policy)).to.be.within(ceiling / 2, ceiling);
      });
    }
  });

  it('spreads replicas out instead of sending them back in lockstep', () => {
    const delays = new Set(Array.from({ length: 50 }, () => backoffDelay(6)));
    expect(delays.size).to.be.greaterThan(10);
  });

  it('stays finite however long an outage lasts', () => {
    expect(backoffDelay(10_000)).to.be.within(RECONNECT_BACKOFF.maxMs / 2, RECONNECT_BACKOFF.maxMs);
  });

  it('starts over after reset()', () => {
    const backoff = new Backoff({ initialMs: 10, maxMs: 10_000 });
    for (let i = 0; i < 8; i += 1) backoff.next();
    expect(backoff.next()).to.be.at.least(640);
    backoff.reset();
    expect(backoff.next()).to.be.within(5, 10);
  });
});
