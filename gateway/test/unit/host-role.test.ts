import { expect } from 'chai';
import { hostRole, resolveHostRole } from '../../src/middleware/host-role.js';
import { fakeRequest, run } from '../support/fake-http.js';

const none = new Set<string>();
const apiHosts = new Set(['api.tix.example']);
const appHosts = new Set(['app.tix.example']);

describe('resolveHostRole', () => {
  it('uses the listener role when no host lists are set', () => {
    expect(resolveHostRole('anything:1', { listenerRole: 'api', apiHosts: none, appHosts: none })).to.equal(
      'api',
    );
    expect(resolveHostRole(undefined, { listenerRole: 'app', apiHosts: none, appHosts: none })).to.equal(
      'app',
    );
  });

  it('lets the Host header decide when lists are set (port and case ignored), on any listener', () => {
    for (const listenerRole of ['api', 'app', null] as const) {
      const options = { listenerRole, apiHosts, appHosts };
      expect(resolveHostRole('api.tix.example', options)).to.equal('api');
      expect(resolveHostRole('API.Tix.Example:8443', options)).to.equal('api');
      expect(resolveHostRole('app.tix.example:80', options)).to.equal('app');
      expect(resolveHostRole('app.tix.example.', options)).to.equal('app');
    }
  });

  it('serves no role for an unknown or missing Host when lists are set', () => {
    const options = { listenerRole: 'api' as const, apiHosts, appHosts };
    expect(resolveHostRole('evil.example', options)).to.equal(null);
    expect(resolveHostRole('api.tix.example.evil.example', options)).to.equal(null);
    expect(resolveHostRole(undefined, options)).to.equal(null);
  });

  it('with only API_HOSTS set, other hosts are unknown', () => {
    expect(resolveHostRole('app.tix.example', { listenerRole: 'app', apiHosts, appHosts: none })).to.equal(
      null,
    );
  });
});

describe('hostRole middleware', () => {
  const middleware = hostRole({
    listenerRole: null,
    apiHosts: ['api.tix.example'],
    appHosts: ['app.tix.example'],
  });

  it('sets request.hostRole', async () => {
    const request = fakeRequest({ headers: { host: 'app.tix.example' } });
    const { nextCalled } = await run(middleware, request);
    expect(nextCalled).to.equal(true);
    expect(request.hostRole).to.equal('app');
  });

  it('answers 404 Unknown host in the envelope', async () => {
    const { nextCalled, response } = await run(middleware, fakeRequest({ headers: { host: 'x.example' } }));
    expect(nextCalled).to.equal(false);
    expect(response.statusCode).to.equal(404);
    expect(response.json()).to.deep.equal({ ok: false, error: { code: 404, message: 'Unknown host' } });
  });
});
