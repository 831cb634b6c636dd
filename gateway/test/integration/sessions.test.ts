import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { OPERATIONS } from '../../src/routes/index.js';
import { createClient } from 'redis';
import { testLogger, expectError } from '@tix/kit/testing';
import { startFakeLookup, USERS, type FakeLookup } from '../support/fake-lookup.js';
import { request, startTestGateway, type TestGateway } from '../support/test-gateway.js';
import { closeRedis, connectRedis, type RedisClient } from '../../src/redis/connect-redis.js';
import { createRedisSessionStore } from '../../src/sessions/redis-session-store.js';
import { createMemorySessionStore, type SessionStore } from '../../src/sessions/session-store.js';

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const COOKIE = /^tix_session=([A-Za-z0-9_-]{43}); Path=\/; HttpOnly; SameSite=Lax$/;
/** The fake lookup's user 10, as the gateway presents users. */
const ALICE = USERS[0]!;

/** A tiny cookie-jar browser for the app host. */
class Browser {
  cookie: string | undefined;
  constructor(private readonly base: string) {}

  async send(path: string, init: RequestInit & { headers?: Record<string, string> } = {}) {
    const headers: Record<string, string> = { ...init.headers };
    if (this.cookie) headers.Cookie = this.cookie;
    const response = await request(`${this.base}${path}`, { ...init, headers });
    const setCookie = response.headers.get('set-cookie');
    if (setCookie) {
      const [pair] = setCookie.split(';');
      this.cookie = pair!.endsWith('=') ? undefined : pair;
    }
    return response;
  }

  async csrfToken(): Promise<string> {
    const response = await this.send('/api/csrf-token');
    return response.body.data.token as string;
  }

  post(path: string, body: unknown, token?: string, extra: Record<string, string> = {}) {
    return this.send(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', ...(token ? { 'X-CSRF-Token': token } : {}), ...extra },
      body: JSON.stringify(body),
    });
  }
}

const REDIS_PREFIX = `tix:test:${randomBytes(4).toString('hex')}:`;

/** Deletes the sessions this file left in Redis. */
async function removeRedisSessions(): Promise<void> {
  const client = createClient({ url: REDIS_URL });
  await client.connect();
  for (const key of await client.keys(`${REDIS_PREFIX}*`)) await client.del(key);
  await client.close();
}

let redisClient: RedisClient | undefined;

const stores: { name: string; create: () => Promise<SessionStore>; cleanUp: () => Promise<void> }[] = [
  {
    name: 'in-memory store',
    create: () => Promise.resolve(createMemorySessionStore({ ttlSeconds: 3600 })),
    cleanUp: () => Promise.resolve(),
  },
  {
    name: 'Redis store',
    create: async () => {
      redisClient = await connectRedis({ url: REDIS_URL, logger: testLogger() });
      return createRedisSessionStore({ client: redisClient, ttlSeconds: 60, keyPrefix: REDIS_PREFIX });
    },
    cleanUp: async () => {
      await removeRedisSessions();
      if (redisClient) await closeRedis(redisClient);
    },
  },
];

for (const storeKind of stores) {
  describe(`browser sessions on /api (${storeKind.name})`, () => {
    let lookup: FakeLookup;
    let gateway: TestGateway;
    let store: SessionStore;

    before(async () => {
      lookup = await startFakeLookup();
      store = await storeKind.create();
      gateway = await startTestGateway({ services: { lookup: lookup.address }, sessionStore: store });
    });
    after(async () => {
      await gateway.close();
      await store.close();
      await storeKind.cleanUp();
      await lookup.stop();
    });

    it('GET /api/csrf-token starts a session, sets the cookie and returns the token', async () => {
      const response = await request(`${gateway.appUrl}/api/csrf-token`);
      expect(response.status).to.equal(200);
      expect(response.body).to.have.all.keys('ok', 'data');
      expect(response.body.data).to.have.all.keys('token');
      expect(response.body.data.token).to.match(/^[A-Za-z0-9_-]{43}$/);
      expect(response.headers.get('set-cookie')).to.match(COOKIE);
      expect(response.headers.get('x-csrf-token')).to.equal(response.body.data.token);
    });

    it('returns the same token for the same session, and no new cookie', async () => {
      const browser = new Browser(gateway.appUrl);
      const first = await browser.csrfToken();
      const cookie = browser.cookie;
      const again = await browser.send('/api/csrf-token');
      expect(again.body.data.token).to.equal(first);
      expect(again.headers.get('set-cookie')).to.equal(null);
      expect(browser.cookie).to.equal(cookie);
    });

    it('refuses state-changing requests without the right token (403 Invalid CSRF token)', async () => {
      const browser = new Browser(gateway.appUrl);
      const token = await browser.csrfToken();
      const other = new Browser(gateway.appUrl);
      const otherToken = await other.csrfToken();
      const credentials = { email: 'alice@example.com', password: 'correct horse battery' };
      const refusal = { ok: false, error: { code: 403, message: 'Invalid CSRF token' } };

      for (const attempt of [
        await browser.post('/api/auth/login', credentials),
        await browser.post('/api/auth/login', credentials, `${token.slice(0, -1)}x`),
        await browser.post('/api/auth/login', credentials, token.slice(0, 10)),
        await browser.post('/api/auth/login', credentials, otherToken),
        await new Browser(gateway.appUrl).post('/api/auth/login', credentials, token),
      ]) {
        expect(attempt.status).to.equal(403);
        expect(attempt.body).to.deep.equal(refusal);
      }
      expect(lookup.calls.AuthenticatePassword ?? 0).to.equal(0);
    });

    it('refuses cross-site state-changing requests even with the token', async () => {
      const browser = new Browser(gateway.appUrl);
      const token = await browser.csrfToken();
      const response = await browser.post('/api/auth/logout', {}, token, { 'Sec-Fetch-Site': 'cross-site' });
      expectError(response, 403, 'Cross-site requests are not allowed');
    });

    it('signs in, rotates the session id and token, answers /me, signs out', async () => {
      const browser = new Browser(gateway.appUrl);
      const anonymousToken = await browser.csrfToken();
      const anonymousCookie = browser.cookie;

      expect((await browser.send('/api/auth/me')).body).to.deep.equal({
        ok: false,
        error: { code: 401, message: 'Not signed in' },
      });

      const login = await browser.post(
        '/api/auth/login',
        { email: 'alice@example.com', password: 'correct horse battery' },
        anonymousToken,
      );
      expect(login.status).to.equal(200);
      expect(login.body.data.user).to.deep.equal(ALICE);
      // What she may call comes with sign-in, as /auth/me answers it (an admin: every operation).
      expect(login.body.data.allowed_operations).to.include.members(['updateGuardrails', 'listApiKeys']);
      const signedInToken = login.body.data.csrf_token as string;
      expect(signedInToken)
        .to.match(/^[A-Za-z0-9_-]{43}$/)
        .and.not.equal(anonymousToken);
      expect(login.headers.get('set-cookie')).to.match(COOKIE);
      expect(browser.cookie).to.not.equal(anonymousCookie);

      // The pre-login session id is dead (no fixation).
      const stale = await request(`${gateway.appUrl}/api/auth/me`, { headers: { Cookie: anonymousCookie! } });
      expect(stale.status).to.equal(401);

      const me = await browser.send('/api/auth/me');
      // An admin may call every operation the session host serves.
      const served = OPERATIONS.filter((operation) => operation.hosts.includes('app'))
        .map((operation) => operation.operationId)
        .sort();
      expect(me.body).to.deep.equal({ ok: true, data: { user: ALICE, allowed_operations: served } });
      expect(lookup.lastContext.GetUsers?.principal).to.deep.equal({
        kind: 'session',
        user_id: 10,
        role: 'admin',
        scopes: [
          'tickets:read',
          'comments:read',
          'customers:read',
          'tickets:write',
          'comments:write',
          'customers:write',
          'tickets:delete',
        ],
      });

      // The old token no longer works; the new one does.
      expect((await browser.post('/api/auth/logout', {}, anonymousToken)).status).to.equal(403);
      const cookieBeforeLogout = browser.cookie;
      const logout = await browser.post('/api/auth/logout', {}, signedInToken);
      expect(logout.body).to.deep.equal({ ok: true, data: { message: 'Signed out' } });
      expect(logout.headers.get('set-cookie')).to.match(
        /^tix_session=; Path=\/; HttpOnly; SameSite=Lax; Max-Age=0$/,
      );
      const after = await request(`${gateway.appUrl}/api/auth/me`, {
        headers: { Cookie: cookieBeforeLogout! },
      });
      expect(after.status).to.equal(401);
    });

    it("lists in /auth/me the operations the user's role allows, as the server enforces them", async () => {
      const browser = new Browser(gateway.appUrl);
      const token = await browser.csrfToken();
      expect(
        (
          await browser.post(
            '/api/auth/login',
            { email: 'alice@example.com', password: 'correct horse battery' },
            token,
          )
        ).status,
      ).to.equal(200);
      lookup.override('GetUsers', () => Promise.resolve({ users: [{ ...ALICE, role: 'agent' }] }));
      try {
        const allowed = (await browser.send('/api/auth/me')).body.data.allowed_operations as string[];
        expect(allowed).to.include.members(['listTickets', 'createTicket', 'suggestReply']);
        for (const operation of OPERATIONS.filter((candidate) => candidate.hosts.includes('app'))) {
          const needs =
            typeof operation.access === 'object' && 'role' in operation.access ? operation.access.role : null;
          const expected = needs === null || needs === 'viewer' || needs === 'agent';
          expect(allowed.includes(operation.operationId), operation.operationId).to.equal(expected);
        }
        // And the server refuses what the list leaves out.
        expect(allowed).to.not.include('listApiKeys');
        expect((await browser.send('/api/api-keys')).status).to.equal(403);
      } finally {
        lookup.reset();
      }
    });

    it('refuses wrong credentials with 401 and bad input with 422', async () => {
      const browser = new Browser(gateway.appUrl);
      const token = await browser.csrfToken();
      const wrong = await browser.post(
        '/api/auth/login',
        { email: 'alice@example.com', password: 'nope' },
        token,
      );
      expectError(wrong, 401, 'Invalid email or password');

      const missing = await browser.post('/api/auth/login', { email: '  ' }, token);
      expectError(missing, 422, 'Validation failed', {
        email: ['Email is required'],
        password: ['Password is required'],
      });
    });

    it('signs a deactivated user out on /me', async () => {
      const browser = new Browser(gateway.appUrl);
      const token = await browser.csrfToken();
      await browser.post(
        '/api/auth/login',
        { email: 'alice@example.com', password: 'correct horse battery' },
        token,
      );
      lookup.override('GetUsers', () => Promise.resolve({ users: [{ ...ALICE, is_active: false }] }));
      try {
        expect((await browser.send('/api/auth/me')).status).to.equal(401);
        lookup.reset();
        expect((await browser.send('/api/auth/me')).status).to.equal(401);
      } finally {
        lookup.reset();
      }
    });

    it('ignores a malformed or unknown session cookie', async () => {
      for (const cookie of ['tix_session=nonsense', `tix_session=${'A'.repeat(43)}`]) {
        const response = await request(`${gateway.appUrl}/api/auth/me`, { headers: { Cookie: cookie } });
        expect(response.status).to.equal(401);
      }
    });
  });
}

describe('session cookie in production', () => {
  it('is Secure', async () => {
    const lookup = await startFakeLookup();
    const gateway = await startTestGateway({ services: { lookup: lookup.address }, secureCookie: true });
    try {
      const response = await request(`${gateway.appUrl}/api/csrf-token`);
      expect(response.headers.get('set-cookie')).to.match(/; HttpOnly; SameSite=Lax; Secure$/);
    } finally {
      await gateway.close();
      await lookup.stop();
    }
  });
});
