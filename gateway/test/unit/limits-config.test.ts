import { expect } from 'chai';
import { ConfigError } from '@tix/kit';
import { loadConfig } from '../../src/config.js';
import { defaultLimitsConfig, parseRateLimitRule, parseRouteLimits } from '../../src/limits/config.js';
import { canonicalJson } from '../../src/limits/idempotency.js';
import { calendarMonth } from '../../src/limits/quota.js';
import {
  addressBucket,
  clientAddress,
  compileRoutes,
  createRateLimiter,
  matchRoute,
  resetSeconds,
  retryAfterSeconds,
} from '../../src/limits/rate-limiter.js';
import { createMemoryRateLimitStore } from '../../src/limits/rate-limit-store.js';
import { FakeResponse, fakeRequest } from '../support/fake-http.js';

describe('limits configuration', () => {
  it('defaults to the spec tables, idempotency on, quotas off', () => {
    const config = defaultLimitsConfig();
    expect(config.rateLimitsEnabled).to.equal(true);
    expect(config.apiKey).to.deep.equal({ limit: 100, windowMs: 60_000 });
    expect(config.session).to.deep.equal({ limit: 250, windowMs: 60_000 });
    expect(config.anonymous).to.deep.equal({ limit: 30, windowMs: 60_000 });
    expect(config.auth).to.deep.equal({ limit: 10, windowMs: 60_000 });
    expect(config.routes.map((route) => [route.pattern, route.limit, route.windowMs / 1000])).to.deep.equal([
      ['/search/*', 10, 60],
      ['/ai/suggest-reply', 30, 3600],
      ['/search/ai', 60, 3600],
      ['/auth/forgot-password', 5, 3600],
      ['/auth/reset-password', 10, 3600],
      ['/me/data-export', 3, 3600],
      ['/client-errors', 30, 60],
      ['/tickets/*/status', 200, 60],
    ]);
    expect(config.idempotencyEnabled).to.equal(true);
    expect(config.quotaFreeAllowance).to.equal(null);
    expect(config.quotaMonthlyLimit).to.equal(null);
    expect(config.trustProxyHops).to.equal(0);
  });

  it('reads the variables through loadConfig', () => {
    const { limits } = loadConfig({
      RATE_LIMITS_ENABLED: 'false',
      RATE_LIMIT_API_KEY: '1e9/60',
      RATE_LIMIT_SESSION: '5/1',
      RATE_LIMIT_ANONYMOUS: '7/3600',
      RATE_LIMIT_AUTH: '3/30',
      RATE_LIMIT_ROUTES: '/tickets/*/status=500/60, /search/*=off, /reports/*=2/10',
      IDEMPOTENCY_ENABLED: 'false',
      QUOTA_FREE_ALLOWANCE: '1000',
      QUOTA_MONTHLY_LIMIT: '50',
      TRUST_PROXY_HOPS: '1',
    });
    expect(limits.rateLimitsEnabled).to.equal(false);
    expect(limits.apiKey).to.deep.equal({ limit: 1_000_000_000, windowMs: 60_000 });
    expect(limits.session).to.deep.equal({ limit: 5, windowMs: 1000 });
    expect(limits.anonymous).to.deep.equal({ limit: 7, windowMs: 3_600_000 });
    expect(limits.auth).to.deep.equal({ limit: 3, windowMs: 30_000 });
    const routes = Object.fromEntries(limits.routes.map((route) => [route.pattern, route.limit]));
    expect(routes['/tickets/*/status']).to.equal(500);
    expect(routes['/search/*']).to.equal(undefined);
    expect(routes['/reports/*']).to.equal(2);
    expect(limits.idempotencyEnabled).to.equal(false);
    expect(limits.quotaFreeAllowance).to.equal(1000);
    expect(limits.quotaMonthlyLimit).to.equal(50);
    expect(limits.trustProxyHops).to.equal(1);
  });

  it('refuses malformed values, naming the variable', () => {
    for (const [name, value] of [
      ['RATE_LIMIT_API_KEY', '100'],
      ['RATE_LIMIT_API_KEY', '0/60'],
      ['RATE_LIMIT_SESSION', '10/0'],
      ['RATE_LIMIT_ANONYMOUS', '10/100000'],
      ['RATE_LIMIT_AUTH', 'ten/60'],
      ['RATE_LIMIT_ROUTES', 'tickets=5/60'],
      ['RATE_LIMIT_ROUTES', '/tickets/*/status=fast'],
      ['RATE_LIMITS_ENABLED', 'maybe'],
      ['QUOTA_MONTHLY_LIMIT', '-1'],
      ['TRUST_PROXY_HOPS', 'all'],
    ] as const) {
      let message = '';
      try {
        loadConfig({ [name]: value });
      } catch (error) {
        expect(error).to.be.instanceOf(ConfigError);
        message = (error as Error).message;
      }
      expect(message, `${name}=${value}`).to.contain(name);
    }
  });

  it('parses rules and route lists', () => {
    expect(parseRateLimitRule(' 10 / 60 ')).to.deep.equal({ limit: 10, windowMs: 60_000 });
    expect(parseRateLimitRule('1.5/60')).to.equal(undefined);
    expect(parseRouteLimits('')).to.have.length(8);
    expect(parseRouteLimits('/a=1/1,')).to.have.length(9);
    expect(parseRouteLimits('/a')).to.equal(undefined);
    // A new limit for a default route keeps whose budget it is.
    expect(
      parseRouteLimits('/me/data-export=5/60')!.find((route) => route.pattern === '/me/data-export'),
    ).to.deep.equal({ pattern: '/me/data-export', limit: 5, windowMs: 60_000, countsPer: 'user' });
  });
});

describe('rate limit targets', () => {
  const routes = compileRoutes(defaultLimitsConfig().routes);

  it('matches overrides by segment, the most specific first, absent routes harmlessly', () => {
    expect(matchRoute(routes, '/tickets/42/status')?.limit).to.equal(200);
    expect(matchRoute(routes, '/Tickets/42/Status/')?.limit).to.equal(200);
    expect(matchRoute(routes, '/tickets/42')).to.equal(undefined);
    expect(matchRoute(routes, '/tickets/42/status/extra')).to.equal(undefined);
    expect(matchRoute(routes, '/search/ai')).to.deep.include({ limit: 60, windowMs: 3_600_000 });
    expect(matchRoute(routes, '/search/tickets')).to.deep.include({ limit: 10, windowMs: 60_000 });
    expect(matchRoute(routes, '/search')).to.equal(undefined);
    expect(matchRoute(routes, '/')).to.equal(undefined);
  });

  it('buckets addresses: IPv4 as is, v4-mapped as IPv4, IPv6 by /64', () => {
    expect(addressBucket('203.0.113.9')).to.equal('203.0.113.9');
    expect(addressBucket('::ffff:127.0.0.1')).to.equal('127.0.0.1');
    expect(addressBucket('2001:db8:0:1:aaaa::1')).to.equal('2001:db8:0:1::/64');
    expect(addressBucket('2001:0db8:0000:0001:ffff:0:0:2')).to.equal('2001:db8:0:1::/64');
    expect(addressBucket('::1')).to.equal('0:0:0:0::/64');
  });

  it('takes the client address from X-Forwarded-For only as far as proxies are trusted', () => {
    const request = fakeRequest({
      headers: { 'x-forwarded-for': '6.6.6.6, 198.51.100.7' },
      socket: { remoteAddress: '10.0.0.2' },
    } as never);
    expect(clientAddress(request, 0)).to.equal('10.0.0.2');
    expect(clientAddress(request, 1)).to.equal('198.51.100.7');
    expect(clientAddress(request, 2)).to.equal('6.6.6.6');
    expect(clientAddress(request, 5)).to.equal('6.6.6.6');
  });

  it("reads a caller's budget on another route without counting (suggest-reply availability)", async () => {
    const limiter = createRateLimiter(defaultLimitsConfig(), createMemoryRateLimitStore());
    const caller = (id: string, path: string, userId = 7) =>
      fakeRequest({
        path,
        hostRole: 'app',
        principal: { kind: 'session', user_id: userId, role: 'agent', scopes: [] },
        session: { id, data: {} },
      } as never);
    await limiter.limit(caller('one', '/ai/suggest-reply'), new FakeResponse() as never);
    const asking = caller('one', '/ai/suggest-reply/availability');
    for (let i = 0; i < 2; i += 1) {
      expect(await limiter.budget(asking, '/ai/suggest-reply')).to.include({
        limit: 30,
        remaining: 29,
        windowMs: 3_600_000,
      });
    }
    // Counted per person: the same user's other session shares the budget, another user has their own.
    expect((await limiter.budget(caller('two', '/x'), '/ai/suggest-reply')).remaining).to.equal(29);
    expect((await limiter.budget(caller('three', '/x', 8), '/ai/suggest-reply')).remaining).to.equal(30);
  });

  it('rounds the reset up and Retry-After to at least one second', () => {
    const decision = { allowed: false, limit: 1, remaining: 0, resetAtMs: 10_000.2, nowMs: 9_999.9 };
    expect(resetSeconds(decision)).to.equal(11);
    expect(retryAfterSeconds(decision)).to.equal(1);
    expect(retryAfterSeconds({ ...decision, resetAtMs: 70_000, nowMs: 10_000 })).to.equal(60);
  });
});

describe('idempotency fingerprints and quota months', () => {
  it('canonical JSON sorts keys at every level and keeps arrays in order', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: 1, y: null }], c: 'x' } })).to.equal(
      '{"a":{"c":"x","d":[2,{"y":null,"z":1}]},"b":1}',
    );
    expect(canonicalJson(null)).to.equal('null');
    expect(canonicalJson(undefined)).to.equal('null');
    expect(canonicalJson([1, 2])).not.to.equal(canonicalJson([2, 1]));
  });

  it('calendar months are UTC', () => {
    expect(calendarMonth(Date.UTC(2026, 10, 30, 23, 59, 59))).to.deep.equal({
      month: '2026-11',
      nextMonthStartMs: Date.UTC(2026, 11, 1),
    });
    expect(calendarMonth(Date.UTC(2026, 11, 31, 12)).nextMonthStartMs).to.equal(Date.UTC(2027, 0, 1));
  });
});
