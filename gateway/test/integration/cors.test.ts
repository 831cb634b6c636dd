import { expect } from 'chai';
import { FULL_KEY, startFakeLookup, type FakeLookup } from '../support/fake-lookup.js';
import { bearer, request, startTestGateway, type TestGateway } from '../support/test-gateway.js';

const EXPOSED =
  'X-Correlation-ID, X-CSRF-Token, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Idempotency-Key, X-Idempotency-Replay, ETag, X-Poll-Interval, Retry-After, Location, Link';

describe('CORS on real responses', () => {
  let lookup: FakeLookup;
  before(async () => {
    lookup = await startFakeLookup();
  });
  after(() => lookup.stop());

  describe('wildcard mode', () => {
    let gateway: TestGateway;
    before(async () => {
      gateway = await startTestGateway({ services: { lookup: lookup.address }, cors: { mode: 'wildcard' } });
    });
    after(() => gateway.close());

    it('allows every origin without credentials, on successes and errors', async () => {
      for (const headers of [
        { ...bearer(FULL_KEY), Origin: 'https://anywhere.example' },
        { Origin: 'https://x.example' },
      ]) {
        const response = await request(`${gateway.apiUrl}/v1/projects`, { headers });
        expect(response.headers.get('access-control-allow-origin')).to.equal('*');
        expect(response.headers.get('access-control-allow-credentials')).to.equal(null);
        expect(response.headers.get('access-control-expose-headers')).to.equal(EXPOSED);
      }
    });

    it('answers a preflight 204 with the spec lists and max age', async () => {
      const response = await fetch(`${gateway.apiUrl}/v1/projects`, {
        method: 'OPTIONS',
        headers: {
          Origin: 'https://anywhere.example',
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization, content-type',
        },
      });
      expect(response.status).to.equal(204);
      expect(response.headers.get('access-control-allow-origin')).to.equal('*');
      expect(response.headers.get('access-control-allow-methods')).to.equal(
        'GET, POST, PUT, PATCH, DELETE, OPTIONS',
      );
      expect(response.headers.get('access-control-allow-headers')).to.equal(
        'Content-Type, X-CSRF-Token, X-API-Key, Authorization, Idempotency-Key, If-None-Match',
      );
      expect(response.headers.get('access-control-max-age')).to.equal('86400');
      expect(response.headers.get('access-control-allow-credentials')).to.equal(null);
      expect(response.headers.get('x-correlation-id')).to.be.a('string');
    });
  });

  describe('origin list mode', () => {
    let gateway: TestGateway;
    before(async () => {
      gateway = await startTestGateway({
        services: { lookup: lookup.address },
        cors: { mode: 'list', origins: ['https://app.example.com'] },
      });
    });
    after(() => gateway.close());

    it('echoes a listed origin with credentials and Vary: Origin', async () => {
      const response = await request(`${gateway.appUrl}/api/csrf-token`, {
        headers: { Origin: 'https://app.example.com' },
      });
      expect(response.headers.get('access-control-allow-origin')).to.equal('https://app.example.com');
      expect(response.headers.get('access-control-allow-credentials')).to.equal('true');
      expect(response.headers.get('access-control-expose-headers')).to.equal(EXPOSED);
      // Accept-Encoding too: every JSON answer may be compressed (http/compression.ts).
      expect(response.headers.get('vary')).to.equal('Origin, Accept-Encoding');
    });

    it('gives an unlisted origin no CORS headers (the request itself is still answered)', async () => {
      const response = await request(`${gateway.apiUrl}/v1/projects`, {
        headers: { ...bearer(FULL_KEY), Origin: 'https://evil.example' },
      });
      expect(response.status).to.equal(200);
      expect(response.headers.get('access-control-allow-origin')).to.equal(null);
      expect(response.headers.get('access-control-allow-credentials')).to.equal(null);
      // Accept-Encoding too: every JSON answer may be compressed (http/compression.ts).
      expect(response.headers.get('vary')).to.equal('Origin, Accept-Encoding');
    });

    it('preflights: a listed origin gets the allowances, an unlisted one a bare 204', async () => {
      const preflight = (origin: string) =>
        fetch(`${gateway.appUrl}/api/auth/login`, {
          method: 'OPTIONS',
          headers: { Origin: origin, 'Access-Control-Request-Method': 'POST' },
        });
      const listed = await preflight('https://app.example.com');
      expect(listed.status).to.equal(204);
      expect(listed.headers.get('access-control-allow-origin')).to.equal('https://app.example.com');
      expect(listed.headers.get('access-control-allow-credentials')).to.equal('true');
      expect(listed.headers.get('access-control-allow-methods')).to.equal(
        'GET, POST, PUT, PATCH, DELETE, OPTIONS',
      );
      const unlisted = await preflight('https://evil.example');
      expect(unlisted.status).to.equal(204);
      expect(unlisted.headers.get('access-control-allow-origin')).to.equal(null);
      expect(unlisted.headers.get('access-control-allow-methods')).to.equal(null);
    });
  });
});
