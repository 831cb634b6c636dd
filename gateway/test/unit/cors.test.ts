import { expect } from 'chai';
import { cors } from '../../src/middleware/cors.js';
import { fakeRequest, run } from '../support/fake-http.js';

const EXPOSED =
  'X-Correlation-ID, X-CSRF-Token, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Idempotency-Key, X-Idempotency-Replay, ETag, X-Poll-Interval, Retry-After, Location, Link';
const PREFLIGHT_HEADERS = {
  'access-control-allow-methods': 'GET, POST, PUT, PATCH, DELETE, OPTIONS',
  'access-control-allow-headers':
    'Content-Type, X-CSRF-Token, X-API-Key, Authorization, Idempotency-Key, If-None-Match',
  'access-control-max-age': '86400',
  'content-length': '0',
};

const preflight = (origin: string) =>
  fakeRequest({ method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'PUT' } });

describe('cors', () => {
  describe('wildcard mode', () => {
    const middleware = cors({ mode: 'wildcard' });

    it('allows any origin, exposes the spec headers, never allows credentials', async () => {
      const { nextCalled, response } = await run(
        middleware,
        fakeRequest({ headers: { origin: 'https://a.example' } }),
      );
      expect(nextCalled).to.equal(true);
      expect(Object.fromEntries(response.headers)).to.deep.equal({
        'access-control-allow-origin': '*',
        'access-control-expose-headers': EXPOSED,
      });
    });

    it('ends a preflight with 204 and the allowances', async () => {
      const { nextCalled, response } = await run(middleware, preflight('https://a.example'));
      expect(nextCalled).to.equal(false);
      expect(response.statusCode).to.equal(204);
      expect(response.ended).to.equal(true);
      expect(Object.fromEntries(response.headers)).to.deep.equal({
        'access-control-allow-origin': '*',
        'access-control-expose-headers': EXPOSED,
        ...PREFLIGHT_HEADERS,
      });
    });

    it('passes OPTIONS without Access-Control-Request-Method on (not a preflight)', async () => {
      const { nextCalled } = await run(
        middleware,
        fakeRequest({ method: 'OPTIONS', headers: { origin: 'https://a.example' } }),
      );
      expect(nextCalled).to.equal(true);
    });
  });

  describe('origin list mode', () => {
    const middleware = cors({ mode: 'list', origins: ['https://app.example.com'] });

    it('echoes a listed origin with credentials and Vary: Origin', async () => {
      const { response } = await run(
        middleware,
        fakeRequest({ headers: { origin: 'https://app.example.com' } }),
      );
      expect(Object.fromEntries(response.headers)).to.deep.equal({
        vary: 'Origin',
        'access-control-allow-origin': 'https://app.example.com',
        'access-control-allow-credentials': 'true',
        'access-control-expose-headers': EXPOSED,
      });
    });

    it('gives an unlisted origin (or none) only Vary: Origin', async () => {
      for (const headers of [
        { origin: 'https://evil.example' },
        { origin: 'https://app.example.com.evil' },
        {},
      ]) {
        const { nextCalled, response } = await run(middleware, fakeRequest({ headers }));
        expect(nextCalled).to.equal(true);
        expect(Object.fromEntries(response.headers)).to.deep.equal({ vary: 'Origin' });
      }
    });

    it('preflight: listed origin gets allowances with credentials; unlisted gets a bare 204', async () => {
      const listed = await run(middleware, preflight('https://app.example.com'));
      expect(listed.response.statusCode).to.equal(204);
      expect(Object.fromEntries(listed.response.headers)).to.deep.equal({
        vary: 'Origin',
        'access-control-allow-origin': 'https://app.example.com',
        'access-control-allow-credentials': 'true',
        'access-control-expose-headers': EXPOSED,
        ...PREFLIGHT_HEADERS,
      });
      const unlisted = await run(middleware, preflight('https://evil.example'));
      expect(unlisted.response.statusCode).to.equal(204);
      expect(Object.fromEntries(unlisted.response.headers)).to.deep.equal({
        vary: 'Origin',
        'content-length': '0',
      });
    });
  });
});
