import { expect } from 'chai';
import type { AppError } from '@tix/kit';
import { requireCsrfToken, tokensMatch } from '../../src/middleware/csrf.js';
import { fakeRequest, run } from '../support/fake-http.js';

const session = { id: 'x'.repeat(43), data: { csrfToken: 'the-token-value', createdAt: '' } };

describe('CSRF', () => {
  it('tokensMatch compares exactly, any length', () => {
    expect(tokensMatch('abc', 'abc')).to.equal(true);
    expect(tokensMatch('abd', 'abc')).to.equal(false);
    expect(tokensMatch('ab', 'abc')).to.equal(false);
    expect(tokensMatch('', 'abc')).to.equal(false);
    expect(tokensMatch('é', 'e')).to.equal(false);
  });

  const middleware = requireCsrfToken();

  it('lets safe methods through without a token', async () => {
    for (const method of ['GET', 'HEAD', 'OPTIONS']) {
      expect((await run(middleware, fakeRequest({ method, session: null }))).nextCalled).to.equal(true);
    }
  });

  it('requires the session token on POST, PUT, PATCH and DELETE', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const ok = await run(
        middleware,
        fakeRequest({ method, session, headers: { 'x-csrf-token': 'the-token-value' } }),
      );
      expect([ok.nextCalled, ok.error]).to.deep.equal([true, undefined]);
      for (const request of [
        fakeRequest({ method, session }),
        fakeRequest({ method, session, headers: { 'x-csrf-token': 'the-token-valuE' } }),
        fakeRequest({ method, session: null, headers: { 'x-csrf-token': 'the-token-value' } }),
      ]) {
        const { error } = await run(middleware, request);
        expect([(error as AppError).httpStatus, (error as AppError).message]).to.deep.equal([
          403,
          'Invalid CSRF token',
        ]);
      }
    }
  });

  it('refuses Sec-Fetch-Site: cross-site on state-changing requests, allows same-origin', async () => {
    const crossSite = await run(
      middleware,
      fakeRequest({
        method: 'POST',
        session,
        headers: { 'x-csrf-token': 'the-token-value', 'sec-fetch-site': 'cross-site' },
      }),
    );
    expect((crossSite.error as AppError).message).to.equal('Cross-site requests are not allowed');
    const sameOrigin = await run(
      middleware,
      fakeRequest({
        method: 'POST',
        session,
        headers: { 'x-csrf-token': 'the-token-value', 'sec-fetch-site': 'same-origin' },
      }),
    );
    expect(sameOrigin.error).to.equal(undefined);
    const crossSiteRead = await run(
      middleware,
      fakeRequest({ method: 'GET', headers: { 'sec-fetch-site': 'cross-site' } }),
    );
    expect(crossSiteRead.nextCalled).to.equal(true);
  });
});
