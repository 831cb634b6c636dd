import { expect } from 'chai';
import { AppError } from '@tix/kit';
import type { lookup } from '@tix/protos';
import { apiKeyPrincipal, createApiKeyAuthenticator } from '../../src/auth/api-key-authenticator.js';

const KEY = 'tix_0123456789abcdefghij';
const OTHER_KEY = 'tix_abcdefghij0123456789';
const REPLIES: Record<string, lookup.ApiKeyPrincipal__Output> = {
  [KEY]: { key_id: 5, user_id: 9, role: 'agent', scopes: ['tickets:read', 'made:up'] },
  [OTHER_KEY]: { key_id: 6, user_id: 9, role: 'agent', scopes: ['tickets:read'], project_id: 3 },
};

/** A fake lookup with a controllable clock and call log. */
function setup(options: { ttlMs?: number; disconnectedTtlMs?: number } = {}) {
  let time = 1_000_000;
  const calls: string[] = [];
  let gate: Promise<void> | undefined;
  const fakeLookup = {
    async AuthenticateApiKey(request: lookup.AuthenticateApiKeyRequest) {
      calls.push(request.key!);
      if (gate) await gate;
      const reply = REPLIES[request.key!];
      if (!reply) throw AppError.unauthenticated('unknown key (lookup wording)');
      return reply;
    },
  };
  const authenticator = createApiKeyAuthenticator({
    lookup: fakeLookup,
    ttlMs: options.ttlMs ?? 60_000,
    disconnectedTtlMs: options.disconnectedTtlMs ?? 5_000,
    now: () => time,
  });
  return {
    authenticator,
    calls,
    advance: (ms: number) => {
      time += ms;
    },
    hold: () => {
      let release!: () => void;
      gate = new Promise((resolve) => (release = resolve));
      return () => {
        gate = undefined;
        release();
      };
    },
  };
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => error as AppError,
  );

describe('apiKeyPrincipal', () => {
  it('builds the api_key principal, dropping unknown scopes, with project_id only when scoped', () => {
    expect(apiKeyPrincipal(REPLIES[KEY]!)).to.deep.equal({
      kind: 'api_key',
      user_id: 9,
      role: 'agent',
      scopes: ['tickets:read'],
      key_id: 5,
    });
    expect(apiKeyPrincipal(REPLIES[OTHER_KEY]!).project_id).to.equal(3);
  });

  it('refuses an unknown role as an internal fault', () => {
    expect(() => apiKeyPrincipal({ ...REPLIES[KEY]!, role: 'emperor' })).to.throw(AppError, /unknown role/);
  });
});

describe('createApiKeyAuthenticator', () => {
  it('asks lookup once, then serves from the cache until the TTL passes (feed connected)', async () => {
    const { authenticator, calls, advance } = setup();
    authenticator.setRevocationFeedConnected(true);
    await authenticator.authenticate(KEY, 'c1');
    advance(59_000);
    await authenticator.authenticate(KEY, 'c2');
    expect(calls).to.deep.equal([KEY]);
    advance(2_000);
    await authenticator.authenticate(KEY, 'c3');
    expect(calls).to.deep.equal([KEY, KEY]);
  });

  it('caps the TTL while the revocation feed is disconnected', async () => {
    const { authenticator, calls, advance } = setup();
    await authenticator.authenticate(KEY, 'c1');
    advance(5_001);
    await authenticator.authenticate(KEY, 'c2');
    expect(calls).to.deep.equal([KEY, KEY]);
  });

  it('shortens existing entries when the feed drops, and starts clean when it returns', async () => {
    const { authenticator, calls, advance } = setup();
    authenticator.setRevocationFeedConnected(true);
    await authenticator.authenticate(KEY, 'c1');
    authenticator.setRevocationFeedConnected(false);
    advance(5_001);
    await authenticator.authenticate(KEY, 'c2');
    expect(calls).to.have.length(2);
    authenticator.setRevocationFeedConnected(true);
    expect(authenticator.cachedCount).to.equal(0);
  });

  it('evicts every entry of a revoked key id, and only those', async () => {
    const { authenticator, calls } = setup();
    authenticator.setRevocationFeedConnected(true);
    await authenticator.authenticate(KEY, 'c');
    await authenticator.authenticate(OTHER_KEY, 'c');
    expect(authenticator.evictKey(5)).to.equal(1);
    expect(authenticator.evictKey(5)).to.equal(0);
    await authenticator.authenticate(OTHER_KEY, 'c');
    await authenticator.authenticate(KEY, 'c');
    expect(calls).to.deep.equal([KEY, OTHER_KEY, KEY]);
  });

  it('does not cache a verification that was in flight when a revocation arrived', async () => {
    const { authenticator, calls, hold } = setup();
    authenticator.setRevocationFeedConnected(true);
    const release = hold();
    const pending = authenticator.authenticate(KEY, 'c');
    authenticator.evictKey(5);
    release();
    await pending;
    await authenticator.authenticate(KEY, 'c');
    expect(calls).to.deep.equal([KEY, KEY]);
  });

  it('shares one lookup call between concurrent requests with the same key', async () => {
    const { authenticator, calls, hold } = setup();
    const release = hold();
    const both = Promise.all([authenticator.authenticate(KEY, 'a'), authenticator.authenticate(KEY, 'b')]);
    release();
    const [first, second] = await both;
    expect(first).to.deep.equal(second);
    expect(calls).to.deep.equal([KEY]);
  });

  it('answers 401 Invalid API key for unknown keys (never cached) and implausible ones (no call)', async () => {
    const { authenticator, calls } = setup();
    for (const key of ['tix_unknown_000000000', 'tix_unknown_000000000']) {
      const error = await failure(authenticator.authenticate(key, 'c'));
      expect([error?.httpStatus, error?.message]).to.deep.equal([401, 'Invalid API key']);
    }
    expect(calls).to.have.length(2);
    for (const key of ['', 'short', 'has space inside it', 'x'.repeat(257), 'tix_ключ_000000000']) {
      const error = await failure(authenticator.authenticate(key, 'c'));
      expect(error?.message).to.equal('Invalid API key');
    }
    expect(calls).to.have.length(2);
  });

  it('passes service outages through (503/504), uncached', async () => {
    const authenticator = createApiKeyAuthenticator({
      lookup: {
        AuthenticateApiKey: () => Promise.reject(AppError.unavailable('Service temporarily unavailable')),
      },
      ttlMs: 60_000,
    });
    const error = await failure(authenticator.authenticate(KEY, 'c'));
    expect(error?.httpStatus).to.equal(503);
    const absent = createApiKeyAuthenticator({ lookup: null, ttlMs: 60_000 });
    expect((await failure(absent.authenticate(KEY, 'c')))?.message).to.equal(
      'The lookup service is not deployed',
    );
  });
});
