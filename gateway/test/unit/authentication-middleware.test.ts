import { expect } from 'chai';
import { AppError } from '@tix/kit';
import type { Principal } from '@tix/protos';
import type { ApiKeyAuthenticator } from '../../src/auth/api-key-authenticator.js';
import { apiKeyOnlyOnApiHost } from '../../src/middleware/api-key-only-on-api-host.js';
import { authenticateApiKey, readApiKey } from '../../src/middleware/authenticate-api-key.js';
import { requireAccess } from '../../src/middleware/require-access.js';
import { fakeRequest, run } from '../support/fake-http.js';

const principal: Principal = {
  kind: 'api_key',
  user_id: 1,
  role: 'agent',
  scopes: ['tickets:read'],
  key_id: 3,
};

describe('readApiKey', () => {
  it('reads a Bearer token (any case, extra spaces) or X-API-Key', () => {
    expect(readApiKey(fakeRequest({ headers: { authorization: 'Bearer abc' } }))).to.equal('abc');
    expect(readApiKey(fakeRequest({ headers: { authorization: 'bearer   abc ' } }))).to.equal('abc');
    expect(readApiKey(fakeRequest({ headers: { 'x-api-key': ' abc ' } }))).to.equal('abc');
    expect(readApiKey(fakeRequest({ headers: { authorization: 'Bearer a', 'x-api-key': 'b' } }))).to.equal(
      'a',
    );
  });

  it("'' for an empty presented key, null when none is presented", () => {
    expect(readApiKey(fakeRequest({ headers: { authorization: 'Bearer' } }))).to.equal('');
    expect(readApiKey(fakeRequest({ headers: { 'x-api-key': '' } }))).to.equal('');
    expect(readApiKey(fakeRequest())).to.equal(null);
    expect(readApiKey(fakeRequest({ headers: { authorization: 'Basic dXNlcjpwYXNz' } }))).to.equal(null);
  });
});

describe('authenticateApiKey', () => {
  const authenticator: ApiKeyAuthenticator = {
    authenticate: (key) =>
      key === 'good-key-123'
        ? Promise.resolve(principal)
        : Promise.reject(AppError.unauthenticated('Invalid API key')),
    evictKey: () => 0,
    evictUser: () => 0,
    setRevocationFeedConnected: () => undefined,
    cachedCount: 0,
  };

  it('sets the principal for a valid key', async () => {
    const request = fakeRequest({ headers: { authorization: 'Bearer good-key-123' } });
    const outcome = await run(authenticateApiKey(authenticator), request);
    expect([outcome.nextCalled, outcome.error]).to.deep.equal([true, undefined]);
    expect(request.principal).to.equal(principal);
  });

  it('401 API key required without one; 401 Invalid API key otherwise', async () => {
    const missing = await run(authenticateApiKey(authenticator), fakeRequest());
    expect((missing.error as AppError).message).to.equal('API key required');
    expect(missing.response.getHeader('WWW-Authenticate')).to.equal('Bearer');
    const invalid = await run(
      authenticateApiKey(authenticator),
      fakeRequest({ headers: { 'x-api-key': 'bad' } }),
    );
    expect((invalid.error as AppError).message).to.equal('Invalid API key');
    expect(invalid.response.getHeader('WWW-Authenticate')).to.equal('Bearer error="invalid_token"');
    expect(invalid.nextCalled).to.equal(false);
  });
});

describe('apiKeyOnlyOnApiHost', () => {
  it('refuses any presented key on the app role with the spec message', async () => {
    for (const headers of [
      { authorization: 'Bearer x' },
      { 'x-api-key': 'x' },
      { authorization: 'Bearer' },
    ]) {
      const { error } = await run(apiKeyOnlyOnApiHost(), fakeRequest({ hostRole: 'app', headers }));
      expect([(error as AppError).httpStatus, (error as AppError).message]).to.deep.equal([
        401,
        'API key authentication is only available on the API subdomain',
      ]);
    }
  });

  it('passes keys on the API role, and keyless requests on the app role', async () => {
    expect(
      (await run(apiKeyOnlyOnApiHost(), fakeRequest({ hostRole: 'api', headers: { 'x-api-key': 'x' } })))
        .error,
    ).to.equal(undefined);
    expect(
      (await run(apiKeyOnlyOnApiHost(), fakeRequest({ hostRole: 'app', headers: { cookie: 'a=b' } }))).error,
    ).to.equal(undefined);
  });
});

describe('requireAccess (one check for both hosts)', () => {
  const onApi = (scope: 'tickets:read' | 'tickets:write' | 'comments:write') =>
    requireAccess({ scope, role: 'agent' }, 'api')!;

  it('passes a key with the scope its owner may use', async () => {
    const outcome = await run(onApi('tickets:read'), fakeRequest({ principal }));
    expect([outcome.nextCalled, outcome.error]).to.deep.equal([true, undefined]);
  });

  it('403 names the missing scope', async () => {
    const { error } = await run(onApi('comments:write'), fakeRequest({ principal }));
    expect([(error as AppError).httpStatus, (error as AppError).message]).to.deep.equal([
      403,
      'Missing required scope: comments:write',
    ]);
  });

  it("403 for a scope the key carries but its owner's role does not allow", async () => {
    const viewerKey: Principal = { ...principal, role: 'viewer', scopes: ['tickets:read', 'tickets:write'] };
    expect((await run(onApi('tickets:read'), fakeRequest({ principal: viewerKey }))).nextCalled).to.equal(
      true,
    );
    const { error, nextCalled } = await run(onApi('tickets:write'), fakeRequest({ principal: viewerKey }));
    expect(nextCalled).to.equal(false);
    expect([(error as AppError).httpStatus, (error as AppError).message]).to.deep.equal([
      403,
      "The key's owner has the viewer role, which does not allow tickets:write",
    ]);
  });

  it('needs no check for "any valid key" on the API host, or for viewers on the session host', () => {
    expect(requireAccess({ scope: null, role: 'viewer' }, 'api')).to.equal(undefined);
    expect(requireAccess({ scope: 'tickets:read', role: 'viewer' }, 'app')).to.equal(undefined);
  });

  it("checks the role on the session host: at least the operation's role", async () => {
    const check = requireAccess({ scope: 'tickets:delete', role: 'team_lead' }, 'app')!;
    const session = (role: Principal['role']): Principal => ({
      kind: 'session',
      user_id: 2,
      role,
      scopes: [],
    });
    for (const role of ['team_lead', 'admin'] as const) {
      expect((await run(check, fakeRequest({ principal: session(role) }))).nextCalled, role).to.equal(true);
    }
    const { error } = await run(check, fakeRequest({ principal: session('agent') }));
    expect([(error as AppError).httpStatus, (error as AppError).message]).to.deep.equal([
      403,
      'Your role (agent) does not allow this; it needs team_lead or higher',
    ]);
  });

  it('a route wired without authentication is an internal fault, never a pass', async () => {
    const { error, nextCalled } = await run(onApi('tickets:read'), fakeRequest());
    expect(nextCalled).to.equal(false);
    expect((error as AppError).kind).to.equal('internal');
  });
});
