import { expect } from 'chai';
import { TtlCache } from '../../src/index.js';

describe('TtlCache', () => {
  let clock = 0;
  const now = () => clock;
  beforeEach(() => {
    clock = 1_000;
  });

  it('returns a value until its TTL passes', () => {
    const cache = new TtlCache<string, number>({ ttlMs: 100, now });
    cache.set('a', 1);
    clock += 99;
    expect(cache.get('a')).to.equal(1);
    clock += 1;
    expect(cache.get('a')).to.be.undefined;
    expect(cache.size).to.equal(0);
  });

  it('stores nothing with a TTL of 0', () => {
    const cache = new TtlCache<string, number>({ ttlMs: 0, now });
    cache.set('a', 1);
    expect(cache.get('a')).to.be.undefined;
  });

  it('evicts the oldest entry when full', () => {
    const cache = new TtlCache<string, number>({ ttlMs: 100, maxEntries: 2, now });
    cache.set('a', 1);
    cache.set('b', 2);
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c')]).to.deep.equal([undefined, 2, 3]);
  });

  it('shares one load among concurrent misses and caches its result', async () => {
    const cache = new TtlCache<string, number>({ ttlMs: 100, now });
    let calls = 0;
    const load = async () => {
      calls++;
      await new Promise((resolve) => setTimeout(resolve, 5));
      return 42;
    };
    expect(await Promise.all([cache.load('a', load), cache.load('a', load)])).to.deep.equal([42, 42]);
    expect(await cache.load('a', load)).to.equal(42);
    expect(calls).to.equal(1);
  });

  it('does not cache null (not found) or a failed load', async () => {
    const cache = new TtlCache<string, number>({ ttlMs: 100, now });
    let calls = 0;
    expect(await cache.load('a', () => Promise.resolve((calls++, null)))).to.equal(null);
    expect(await cache.load('a', () => Promise.resolve((calls++, null)))).to.equal(null);
    expect(calls).to.equal(2);
    let failure: unknown;
    await cache
      .load('b', () => Promise.reject(new Error('down')))
      .catch((error: unknown) => (failure = error));
    expect((failure as Error).message).to.equal('down');
    expect(await cache.load('b', () => Promise.resolve(7))).to.equal(7);
  });
  it('a per-entry TTL overrides the default', () => {
    const cache = new TtlCache<string, number>({ ttlMs: 100, now });
    cache.set('a', 1, 500);
    clock += 400;
    expect(cache.get('a')).to.equal(1);
  });

  it('deleteWhere removes matching values; capExpiry shortens lives; clear empties', () => {
    const cache = new TtlCache<string, number>({ now });
    cache.set('a', 1, 1_000);
    cache.set('b', 2, 1_000);
    cache.set('c', 3, 10);
    expect(cache.deleteWhere((value) => value === 2)).to.equal(1);
    cache.capExpiry(50);
    clock = 1_000 + 20;
    expect([cache.get('a'), cache.get('c')]).to.deep.equal([1, undefined]);
    clock = 1_000 + 50;
    expect(cache.get('a')).to.equal(undefined);
    cache.set('d', 4, 10);
    cache.clear();
    expect(cache.size).to.equal(0);
  });
});
