import { expectError } from '@tix/kit/testing';
import { expect } from 'chai';
import { FULL_KEY, startFakeLookup, type FakeLookup } from '../support/fake-lookup.js';
import {
  bearer,
  request,
  requestWithHost,
  startTestGateway,
  type TestGateway,
} from '../support/test-gateway.js';

const API_KEY_ON_APP_HOST = {
  ok: false,
  error: { code: 401, message: 'API key authentication is only available on the API subdomain' },
};

describe('host roles', () => {
  let lookup: FakeLookup;
  before(async () => {
    lookup = await startFakeLookup();
  });
  after(() => lookup.stop());

  describe('two listeners (API port, app port)', () => {
    let gateway: TestGateway;
    before(async () => {
      gateway = await startTestGateway({ services: { lookup: lookup.address } });
    });
    after(() => gateway.close());

    it('serves /v1 on the API port', async () => {
      expect((await request(`${gateway.apiUrl}/v1/projects`, { headers: bearer(FULL_KEY) })).status).to.equal(
        200,
      );
    });

    it('answers an API key on the app port with the exact 401, by either header and on any path', async () => {
      for (const headers of [bearer(FULL_KEY), { 'X-API-Key': FULL_KEY }]) {
        for (const path of ['/v1/projects', '/api/csrf-token', '/api/auth/me']) {
          const response = await request(`${gateway.appUrl}${path}`, { headers });
          expect(response.status).to.equal(401);
          expect(response.body).to.deep.equal(API_KEY_ON_APP_HOST);
          expect(response.headers.get('x-correlation-id')).to.be.a('string');
        }
      }
    });

    it('does not serve /v1 on the app port without a key (404)', async () => {
      const response = await request(`${gateway.appUrl}/v1/projects`);
      expectError(response, 404, 'Route GET /v1/projects not found');
    });

    it('does not serve /api on the API port (404)', async () => {
      const response = await request(`${gateway.apiUrl}/api/csrf-token`);
      expectError(response, 404, 'Route GET /api/csrf-token not found');
    });

    it('serves /healthz on both ports without auth', async () => {
      for (const base of [gateway.apiUrl, gateway.appUrl]) {
        const response = await request(`${base}/healthz`);
        expect(response.body).to.deep.equal({ ok: true, data: { status: 'alive' } });
      }
    });
  });

  describe('one listener told apart by Host (API_HOSTS / APP_HOSTS)', () => {
    let gateway: TestGateway;
    before(async () => {
      gateway = await startTestGateway({
        services: { lookup: lookup.address },
        sharedListener: true,
        apiHosts: ['api.tix.test'],
        appHosts: ['app.tix.test'],
      });
    });
    after(() => gateway.close());

    it('routes by Host name, ignoring the port and case', async () => {
      const api = await requestWithHost(`${gateway.apiUrl}/v1/projects`, {
        host: 'API.tix.test:443',
        headers: bearer(FULL_KEY),
      });
      expect(api.status).to.equal(200);
      const app = await requestWithHost(`${gateway.apiUrl}/api/csrf-token`, { host: 'app.tix.test' });
      expect(app.status).to.equal(200);
      expect(app.body.data.token).to.be.a('string');
    });

    it('keeps each role to its own paths', async () => {
      const v1OnApp = await requestWithHost(`${gateway.apiUrl}/v1/projects`, { host: 'app.tix.test' });
      expect(v1OnApp.status).to.equal(404);
      const keyOnApp = await requestWithHost(`${gateway.apiUrl}/v1/projects`, {
        host: 'app.tix.test',
        headers: bearer(FULL_KEY),
      });
      expect(keyOnApp.body).to.deep.equal(API_KEY_ON_APP_HOST);
      const apiOnApi = await requestWithHost(`${gateway.apiUrl}/api/csrf-token`, { host: 'api.tix.test' });
      expect(apiOnApi.status).to.equal(404);
    });

    it('answers an unknown host 404 in the envelope', async () => {
      const response = await requestWithHost(`${gateway.apiUrl}/v1/projects`, {
        host: 'evil.example',
        headers: bearer(FULL_KEY),
      });
      expectError(response, 404, 'Unknown host');
      expect(response.headers['x-correlation-id']).to.be.a('string');
    });

    it('serves the probes whatever the Host (orchestrators probe by IP)', async () => {
      const response = await requestWithHost(`${gateway.apiUrl}/healthz`, { host: '10.1.2.3:8080' });
      expect(response.status).to.equal(200);
    });
  });
});
